import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import request from 'supertest';
import { eventually, metricSample } from '@app/testkit';
import { csvCell, csvText, FIELDS, saleCells, saleJson } from './support/sale-fixtures';
import { generated, prepareSalesTool, SALES_PATH, startIngest, upload, type IngestApp } from './support/sales-test';

interface Summary {
  ingestion_id: string;
  status: string;
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
  error_count: number;
  errors: Array<{ line: number; record: number; field: string; reason: string }>;
  bytes: number;
  duration_ms: number;
}

const CSV = { 'Content-Type': 'application/csv' };
const JSON_TYPE = { 'Content-Type': 'application/json' };

describe('POST /DataInserterSales/api/sales', () => {
  let t: IngestApp;
  let key: string;
  let accountId: string;

  const salesOf = async (account: string) =>
    (await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1', [account]))!.n;

  beforeAll(async () => {
    await prepareSalesTool();
    // Every upload with a Content-Length is large, and straight COPYs are small: a few hundred lines into an account
    // with lines take several savepoints.
    t = await startIngest({ INGEST_STRAIGHT_MIN_BYTES: '0', INGEST_STRAIGHT_SEGMENT_BYTES: '1024' });
    ({ key, accountId } = await t.apiKey());
  }, 180_000);
  afterAll(() => t.close());

  it('stores a CSV file as typed rows and answers 201 with the summary', async () => {
    const rows = [1, 2, 3].map((n) => saleCells(n));
    rows[1] = { ...rows[1], ProductName: 'Café; "quoted"\nand a newline', ProductBrand: '' };
    const res = await upload(t.port, { apiKey: key, ...CSV }, csvText(rows));
    expect(res.status).toBe(201);
    const body = res.json<Summary>();
    expect(body).toMatchObject({ status: 'completed', received: 3, inserted: 3, updated: 0, rejected: 0, errors: [] });
    const stored = await t.sql.rows<Record<string, unknown>>(
      `SELECT order_id, order_date, product_name, product_brand, product_price, product_quantity, customer_birth, ingestion_id
       FROM ingest_push.sales WHERE account_id = $1 AND product_id = $2`,
      [accountId, rows[1].ProductId],
    );
    expect(stored).toEqual([
      {
        order_id: rows[1].OrderId,
        order_date: new Date(rows[1].OrderDate),
        product_name: 'Café; "quoted"\nand a newline',
        product_brand: null,
        product_price: Number(rows[1].ProductPrice),
        product_quantity: Number(rows[1].ProductQuantity),
        customer_birth: new Date(rows[1].CustomerBirth),
        ingestion_id: body.ingestion_id,
      },
    ]);
  });

  it('is idempotent: the same file again updates the same rows, and a repeated line keeps its last version', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    const file = generated(['--format', 'csv', '--rows', '500', '--seed', '9']);
    const first = (await upload(t.port, { apiKey: k, ...CSV }, file)).json<Summary>();
    expect(first).toMatchObject({ received: 500, inserted: 500, updated: 0 });
    const again = (await upload(t.port, { apiKey: k, ...CSV }, generated(['--format', 'csv', '--rows', '500', '--seed', '9']))).json<Summary>();
    expect(again).toMatchObject({ received: 500, inserted: 0, updated: 500, rejected: 0 });
    expect(await salesOf(a)).toBe(500);

    const twice = csvText([
      { ...saleCells(1), StoreName: 'old' },
      { ...saleCells(1), StoreName: 'new' },
    ]);
    expect((await upload(t.port, { apiKey: k, ...CSV }, twice)).json<Summary>()).toMatchObject({ received: 2, inserted: 0, updated: 2 });
    const row = await t.sql.one<{ store_name: string }>('SELECT store_name FROM ingest_push.sales WHERE account_id = $1 AND product_id = $2', [a, 'P-1']);
    expect(row!.store_name).toBe('new');
    expect(await salesOf(a)).toBe(500);
  });

  it('keeps the last version of a line the file repeats, into an empty account and beside lines that exist', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    const storeOf = async (product: string) =>
      (await t.sql.one<{ store_name: string }>('SELECT store_name FROM ingest_push.sales WHERE account_id = $1 AND product_id = $2', [a, product]))!.store_name;
    const fresh = csvText([{ ...saleCells(1), StoreName: 'a' }, saleCells(2), { ...saleCells(1), StoreName: 'b' }]);
    expect((await upload(t.port, { apiKey: k, ...CSV }, fresh)).json<Summary>()).toMatchObject({ received: 3, inserted: 2, updated: 1 });
    expect(await storeOf('P-1')).toBe('b');
    // P-2 exists and is repeated, P-3 is new and repeated, P-1 exists once.
    const mixed = csvText([
      { ...saleCells(2), StoreName: 'c' },
      { ...saleCells(3), StoreName: 'd' },
      { ...saleCells(1), StoreName: 'e' },
      { ...saleCells(3), StoreName: 'f' },
      { ...saleCells(2), StoreName: 'g' },
    ]);
    expect((await upload(t.port, { apiKey: k, ...CSV }, mixed)).json<Summary>()).toMatchObject({ received: 5, inserted: 1, updated: 4 });
    expect([await storeOf('P-1'), await storeOf('P-2'), await storeOf('P-3')]).toEqual(['e', 'g', 'f']);
    expect(await salesOf(a)).toBe(3);
  });

  it('lands two uploads into a new account sent at once, whole: the one merged second updates every line of the first', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    const uploads = ['first', 'second'].map((store) => {
      const text = csvText(Array.from({ length: 300 }, (_, i) => ({ ...saleCells(i + 1), StoreName: store })));
      const body = new Readable({ read() {} });
      body.push(text.slice(0, text.length >> 1));
      return { body, rest: () => (body.push(text.slice(text.length >> 1)), body.push(null)), answer: upload(t.port, { apiKey: k, ...CSV }, body) };
    });
    // Both run (one took the account's turn and COPYs into sales, the other stages) before either body ends. Read from
    // /metrics: behind a transaction pooler of 2 connections, the two uploads hold both while their bodies wait.
    const running = async () => metricSample((await request(t.http).get('/metrics').expect(200)).text, 'ingest_uploads_running', {});
    await eventually(async () => ((await running()) === 2 ? true : undefined));
    for (const u of [...uploads].reverse()) u.rest();
    const answers = await Promise.all(uploads.map(async (u) => (await u.answer).json<Summary>()));
    expect(answers.map((s) => s.status)).toEqual(['completed', 'completed']);
    expect(answers.map((s) => s.inserted + s.updated)).toEqual([300, 300]);
    expect(answers.map((s) => s.inserted).sort()).toEqual([0, 300]);
    const stores = await t.sql.rows<{ store_name: string; n: number }>(
      'SELECT store_name, count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1 GROUP BY 1',
      [a],
    );
    expect(stores).toHaveLength(1);
    expect(stores[0].n).toBe(300);
  });

  it('COPYs new lines into an account with lines straight into sales, and merges from the first COPY that meets a stored line', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    const lines = (from: number, to: number, store: string) => Array.from({ length: to - from + 1 }, (_, i) => ({ ...saleCells(from + i), StoreName: store }));
    await upload(t.port, { apiKey: k, ...CSV }, csvText(lines(1, 100, 'old')));
    // New lines, then line 50 (stored) and more new ones: the COPYs before it are kept, the one that meets it is staged.
    const text = csvText([...lines(101, 400, 'new'), ...lines(50, 50, 'new'), ...lines(401, 500, 'new')]);
    const cut = text.indexOf('\n', text.length >> 1);
    const body = new Readable({ read() {} });
    body.push(text.slice(0, cut));
    const answer = upload(t.port, { apiKey: k, ...CSV, 'Content-Length': String(Buffer.byteLength(text)) }, body);
    const copyingIntoSales = async () =>
      (await t.sql.one<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY ingest_push.sales (%' AND pid <> pg_backend_pid()",
      ))!.n;
    await eventually(async () => ((await copyingIntoSales()) === 1 ? true : undefined));
    body.push(text.slice(cut));
    body.push(null);
    expect((await answer).json<Summary>()).toMatchObject({ status: 'completed', received: 401, inserted: 400, updated: 1, rejected: 0 });
    const stores = await t.sql.rows<{ store_name: string; n: number }>(
      'SELECT store_name, count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1 GROUP BY 1 ORDER BY 1',
      [a],
    );
    expect(stores).toEqual([
      { store_name: 'new', n: 401 },
      { store_name: 'old', n: 99 },
    ]);
  });

  it('lists row errors with line, record, field and reason: the first 100 in the answer, all of them as CSV', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    const res = await upload(t.port, { apiKey: k, ...CSV }, generated(['--format', 'csv', '--rows', '1200', '--invalid-every', '5']));
    const body = res.json<Summary>();
    expect(body).toMatchObject({ received: 1200, rejected: 240, inserted: 960, error_count: 240 });
    expect(body.errors).toHaveLength(100);
    expect(body.errors[0]).toEqual({ line: expect.any(Number), record: 5, field: 'ProductPrice', reason: expect.stringContaining('decimal part') });
    expect(body.errors.map((e) => e.record)).toEqual(Array.from({ length: 100 }, (_, i) => 5 * (i + 1)));
    expect(await salesOf(a)).toBe(960);

    const csv = await request(t.http).get(`${SALES_PATH}/ingestions/${body.ingestion_id}/errors`).set('apiKey', k).buffer(true);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('line;record;field;reason');
    expect(lines).toHaveLength(241);
    expect(lines[1]).toBe(`${body.errors[0].line};5;ProductPrice;must be a number with a decimal part, such as 10.0`);

    const summary = await request(t.http).get(`${SALES_PATH}/ingestions/${body.ingestion_id}`).set('apiKey', k);
    expect(summary.status).toBe(200);
    expect(summary.body).toEqual({ ...body, duration_ms: expect.any(Number) });
  });

  it('counts accepted and rejected rows in /metrics', async () => {
    const exposed = (await request(t.http).get('/metrics').expect(200)).text;
    expect(exposed).toContain('# HELP ingest_rows_total Sales rows ingested (accepted) or refused (rejected).\n# TYPE ingest_rows_total counter\n');
    const rowsCounted = async (outcome: string): Promise<number> => {
      const text = (await request(t.http).get('/metrics').expect(200)).text;
      const line = text.split('\n').find((l) => l.startsWith(`ingest_rows_total{`) && l.includes(`outcome="${outcome}"`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const before = { accepted: await rowsCounted('accepted'), rejected: await rowsCounted('rejected') };
    const { key: k } = await t.apiKey();
    await upload(t.port, { apiKey: k, ...CSV }, generated(['--format', 'csv', '--rows', '50', '--invalid-every', '5']));
    expect(await rowsCounted('accepted')).toBe(before.accepted + 40);
    expect(await rowsCounted('rejected')).toBe(before.rejected + 10);
    expect((await request(t.http).get('/metrics').expect(200)).text).toMatch(/^ingest_rows_total\{outcome="accepted",service="ingest-push"\} \d+$/m);
  });

  it('counts uploads by how they ended, and those running', async () => {
    const { key: k } = await t.apiKey();
    const uploads = async (outcome: string): Promise<number> => {
      const text = (await request(t.http).get('/metrics').expect(200)).text;
      expect(text).toMatch(/^ingest_uploads_running\{service="ingest-push"\} 0$/m);
      return metricSample(text, 'ingest_uploads_total', { outcome }) ?? 0;
    };
    const before = await uploads('completed');
    await upload(t.port, { apiKey: k, ...CSV }, generated(['--format', 'csv', '--rows', '5']));
    expect(await uploads('completed')).toBe(before + 1);
  });

  it('reports the physical line of each bad row, CRLF and quoted newlines included', async () => {
    const rows = [saleCells(1), { ...saleCells(2), CustomerName: 'a\r\nb' }, { ...saleCells(3), OrderDate: '2024-01-01' }];
    const text = csvText(rows).replace(/\n/g, '\r\n').replace('a\r\r\nb', 'a\r\nb');
    const body = (await upload(t.port, { apiKey: key, 'Content-Type': 'text/csv; charset=utf-8' }, '\uFEFF' + text)).json<Summary>();
    expect(body.errors).toEqual([{ line: 5, record: 3, field: 'OrderDate', reason: expect.stringContaining('milliseconds') }]);
  });

  it('stores characters COPY must escape, and refuses a float PostgreSQL cannot hold, without failing the upload', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    // The overridden values go in unquoted, as a careless writer would.
    const cells = (n: number, over: Record<string, string>) => FIELDS.map((f) => over[f] ?? csvCell(saleCells(n)[f])).join(';');
    const text =
      [
        FIELDS.join(';'),
        cells(1, { StoreName: 'lone\rcr', StoreCity: 'back\\slash\ttab' }),
        cells(2, { ProductPrice: '1.0e-400' }),
        cells(3, { StoreName: '\\.' }),
      ].join('\r\n') + '\r\n';
    const body = (await upload(t.port, { apiKey: k, ...CSV }, text)).json<Summary>();
    expect(body).toMatchObject({
      received: 3,
      inserted: 2,
      rejected: 1,
      errors: [{ record: 2, field: 'ProductPrice', reason: expect.stringContaining('range') }],
    });
    const rows = await t.sql.rows<{ store_name: string; store_city: string }>(
      'SELECT store_name, store_city FROM ingest_push.sales WHERE account_id = $1 ORDER BY product_id',
      [a],
    );
    expect(rows).toEqual([
      { store_name: 'lone\rcr', store_city: 'back\\slash\ttab' },
      { store_name: '\\.', store_city: 'São Paulo' },
    ]);
  });

  it('refuses a JSON number field holding an object with a toString member as a row error, without failing the upload', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    const bad = saleJson(saleCells(2)).replace(/"OrderDiscount":[^,}]+/, '"OrderDiscount":{"toString":false}');
    expect(bad).toContain('{"toString":false}');
    const res = await upload(t.port, { apiKey: k, ...JSON_TYPE }, `[${saleJson(saleCells(1))},${bad}]`);
    expect(res.status).toBe(201);
    expect(res.json<Summary>()).toMatchObject({ received: 2, inserted: 1, rejected: 1, errors: [{ record: 2, field: 'OrderDiscount' }] });
    expect(await salesOf(a)).toBe(1);
  });

  it('reports progress (rows so far) while a large upload runs', async () => {
    const slow = await startIngest({ INGEST_PROGRESS_INTERVAL_MS: '50' });
    try {
      const { key: k } = await slow.apiKey();
      const body = new Readable({ read() {} });
      const answer = upload(slow.port, { apiKey: k, ...CSV }, body);
      const all = csvText(Array.from({ length: 300 }, (_, i) => saleCells(i + 1)));
      body.push(all.slice(0, all.length / 2));
      const running = await eventually(async () => {
        const list = await slow.sql.rows<{ id: string }>("SELECT id FROM ingest_push.sales_ingestions WHERE status = 'running'");
        if (list.length === 0) return undefined;
        const got = await request(slow.http).get(`${SALES_PATH}/ingestions/${list[0].id}`).set('apiKey', k);
        return got.body.received > 0 ? (got.body as Summary) : undefined;
      });
      expect(running).toMatchObject({ status: 'running', received: expect.any(Number), inserted: 0, bytes: expect.any(Number) });
      expect(running.received).toBeGreaterThan(0);
      expect(running.received).toBeLessThan(300);
      body.push(all.slice(all.length / 2));
      body.push(null);
      expect((await answer).json<Summary>()).toMatchObject({ status: 'completed', received: 300 });
    } finally {
      await slow.close();
    }
  });

  it('keeps nothing of an upload whose client drops the connection mid-stream, and calls it cancelled', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    const body = new Readable({ read() {} });
    const all = csvText(Array.from({ length: 400 }, (_, i) => saleCells(i + 1)));
    const answer = upload(t.port, { apiKey: k, ...CSV }, body).then(
      () => 'answered',
      () => 'failed',
    );
    body.push(all.slice(0, all.length / 2));
    const id = await eventually(
      async () =>
        (
          await t.sql.one<{ id: string }>(
            "SELECT id FROM ingest_push.sales_ingestions WHERE account_id = $1 AND bytes > 0 OR (account_id = $1 AND status = 'running')",
            [a],
          )
        )?.id,
    );
    body.destroy(new Error('client went away'));
    expect(await answer).toBe('failed');
    const status = await eventually(async () => {
      const row = (await t.sql.one<{ status: string }>('SELECT status FROM ingest_push.sales_ingestions WHERE id = $1', [id]))!;
      return row.status === 'running' ? undefined : row.status;
    });
    expect(status).toBe('cancelled');
    expect(await salesOf(a)).toBe(0);
    expect((await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales_ingestion_errors WHERE ingestion_id = $1', [id]))!.n).toBe(0);
  });

  it.each([
    ['a truncated JSON array', JSON_TYPE, `[${saleJson(saleCells(1))},${saleJson(saleCells(2)).slice(0, 50)}`, /truncated/],
    ['a JSON top level that is not an array', JSON_TYPE, saleJson(saleCells(1)), /JSON array/],
    [
      'a CSV without a header',
      CSV,
      csvText([saleCells(1)])
        .split('\n')
        .slice(1)
        .join('\n'),
      /unknown field|header/,
    ],
    ['a CSV with the wrong delimiter', CSV, csvText([saleCells(1)]).replace(/;/g, ','), /separated by ";"/],
    ['binary garbage as CSV', CSV, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)), /header|unknown field|too long/],
    ['binary garbage as JSON', JSON_TYPE, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 1) % 256)), /JSON array/],
    ['an empty body', CSV, '', /no header/],
  ])('answers 400 to %s and keeps nothing', async (_what, headers, body, message) => {
    const { key: k, accountId: a } = await t.apiKey();
    const res = await upload(t.port, { apiKey: k, ...headers }, body);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ message: expect.stringMatching(message) });
    expect(await salesOf(a)).toBe(0);
    const failed = await t.sql.rows<{ status: string }>('SELECT status FROM ingest_push.sales_ingestions WHERE account_id = $1', [a]);
    expect(failed.every((f) => f.status === 'failed')).toBe(true);
  });

  it.each([
    ['text/plain'],
    ['application/xml'],
    ['multipart/form-data; boundary=x'],
    ['application/csv; charset=latin1'],
    [''],
    ['constructor'],
    ['__proto__'],
    ['toString'],
  ])('answers 415 to Content-Type %j', async (type) => {
    const res = await upload(t.port, { apiKey: key, ...(type ? { 'Content-Type': type } : {}) }, csvText([saleCells(1)]));
    expect(res.status).toBe(415);
    expect(res.json()).toMatchObject({ message: expect.stringContaining('application/csv') });
  });

  it('answers 401 without a valid apiKey, before reading the body', async () => {
    const attempts: Array<Record<string, string>> = [{}, { apiKey: 'nope' }, { apiKey: `${key}x` }, { apiKey: key.replace(/_[^_]+$/, '_wrongsecret') }];
    for (const headers of attempts) {
      const res = await upload(t.port, { ...headers, ...CSV }, csvText([saleCells(1)]));
      expect(res.status).toBe(401);
    }
  });

  it('answers 413 at once to a declared Content-Length over 1 GB, keeping nothing', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    const body = new Readable({ read() {} });
    body.push(csvText([saleCells(1)]));
    const res = await upload(t.port, { apiKey: k, ...CSV, 'Content-Length': String(5 * 1024 ** 3) }, body);
    expect(res.status).toBe(413);
    expect(await salesOf(a)).toBe(0);
    expect(await t.sql.rows('SELECT 1 FROM ingest_push.sales_ingestions WHERE account_id = $1', [a])).toEqual([]);
  });

  it('answers 413 to a chunked body that passes 1 GB, counting the bytes it read, keeping nothing', async () => {
    const { key: k, accountId: a } = await t.apiKey();
    // A valid start, then whitespace: cheap to generate and to scan, and it never ends the array.
    let sent = 0;
    const spaces = Buffer.alloc(1024 * 1024, 0x20);
    const body = new Readable({
      read() {
        if (sent === 0) this.push(`[${saleJson(saleCells(1))},`);
        sent += spaces.length;
        this.push(sent > 1.5 * 1024 ** 3 ? null : spaces);
      },
    });
    const res = await upload(t.port, { apiKey: k, ...JSON_TYPE }, body);
    expect(res.status).toBe(413);
    expect(res.json()).toMatchObject({ limit_bytes: 1024 ** 3 });
    expect(sent).toBeLessThan(1.5 * 1024 ** 3);
    expect(await salesOf(a)).toBe(0);
    const [ingestion] = await t.sql.rows<{ status: string; bytes: string }>('SELECT status, bytes FROM ingest_push.sales_ingestions WHERE account_id = $1', [
      a,
    ]);
    expect(ingestion.status).toBe('failed');
    expect(Number(ingestion.bytes)).toBeGreaterThan(1024 ** 3);
  }, 120_000);

  it('answers 401 to an unauthenticated upload at once and, while the client keeps sending, drops the rest for at most 5 s, then cuts the connection', async () => {
    // 64 KiB every 10 ms (≈ 6.4 MB/s): 1 GB would take minutes. The client ignores the answer and keeps sending.
    let sent = 0;
    const started = Date.now();
    let answeredAt = 0;
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: t.port, method: 'POST', path: SALES_PATH, headers: { ...CSV, 'Transfer-Encoding': 'chunked' } },
        (res) => {
          answeredAt = Date.now();
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', () => undefined);
      const tick = setInterval(() => {
        if (req.destroyed || sent >= 1024 ** 3) return clearInterval(tick);
        sent += 65_536;
        req.write(Buffer.alloc(65_536, 0x20));
      }, 10);
      req.on('close', () => clearInterval(tick));
      setTimeout(() => reject(new Error('no answer')), 10_000).unref();
    });
    expect(status).toBe(401);
    expect(answeredAt - started).toBeLessThan(2_000);
    const cut = await new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        const before = sent;
        setTimeout(() => {
          if (sent === before) {
            clearInterval(poll);
            resolve(Date.now());
          }
        }, 100);
      }, 200);
    });
    expect(cut - answeredAt).toBeGreaterThan(4_000);
    expect(cut - answeredAt).toBeLessThan(8_000);
    expect(sent).toBeLessThan(100 * 1024 ** 2);
  }, 30_000);

  it("lets an upload take longer than Node's 5-minute request timeout (the idle timeout guards stalls)", () => {
    expect((t.http as import('node:http').Server).requestTimeout).toBe(0);
  });

  it('keeps other requests answered while an upload streams', async () => {
    const body = new Readable({ read() {} });
    const answer = upload(t.port, { apiKey: key, ...CSV }, body);
    body.push(csvText([saleCells(1)]));
    const health = await request(t.http).get('/health');
    expect(health.status).toBe(200);
    const other = await upload(t.port, { apiKey: key, ...CSV }, csvText([saleCells(2)]));
    expect(other.status).toBe(201);
    body.push(null);
    expect((await answer).status).toBe(201);
  });
});

describe('sales ingestion limits', () => {
  let t: IngestApp;
  beforeAll(async () => {
    // The 503 test holds an upload open (idle) meanwhile: an idle timeout a loaded machine cannot reach by accident.
    t = await startIngest({ INGEST_IDLE_TIMEOUT_MS: '2000', INGEST_MAX_CONCURRENT_UPLOADS: '1', INGEST_MAX_BYTES: '100000' });
  });
  afterAll(() => t.close());

  it('answers 408 to a body that stalls (slow loris), keeps nothing, and serves the next upload', async () => {
    const { key, accountId } = await t.apiKey();
    const body = new Readable({ read() {} });
    body.push(csvText([saleCells(1)]));
    const res = await upload(t.port, { apiKey: key, ...CSV }, body);
    expect(res.status).toBe(408);
    expect(await t.sql.rows('SELECT 1 FROM ingest_push.sales WHERE account_id = $1', [accountId])).toEqual([]);
    expect((await upload(t.port, { apiKey: key, ...CSV }, csvText([saleCells(2)]))).status).toBe(201);
  });

  it('answers 503 with Retry-After when the instance already runs its maximum of uploads', async () => {
    const { key, accountId } = await t.apiKey();
    const body = new Readable({ read() {} });
    const first = upload(t.port, { apiKey: key, ...CSV }, body);
    body.push(FIELDS.join(';') + '\n');
    // The first upload holds the only slot once its ingestion runs.
    await eventually(
      async () => (await t.sql.one("SELECT 1 FROM ingest_push.sales_ingestions WHERE account_id = $1 AND status = 'running'", [accountId])) ?? undefined,
    );
    const second = await upload(t.port, { apiKey: key, ...CSV }, csvText([saleCells(2)]));
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('5');
    body.push(null);
    expect((await first).status).toBe(201);
  });

  it('answers 413 to a body over the configured limit and keeps nothing of the rows before it', async () => {
    const { key, accountId } = await t.apiKey();
    const res = await upload(t.port, { apiKey: key, ...CSV }, generated(['--format', 'csv', '--rows', '2000']));
    expect(res.status).toBe(413);
    expect(await t.sql.rows('SELECT 1 FROM ingest_push.sales WHERE account_id = $1', [accountId])).toEqual([]);
  });
});

describe('GET /DataInserterSales/api/sales/ingestions/{id}', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest();
  });
  afterAll(() => t.close());

  it("answers 404 for another account's ingestion, an unknown id and a malformed id", async () => {
    const owner = await t.apiKey();
    const other = await t.apiKey();
    const sibling = await t.apiKey(owner.account);
    const id = (await upload(t.port, { apiKey: owner.key, ...CSV }, generated(['--format', 'csv', '--rows', '10', '--invalid-every', '2']))).json<Summary>()
      .ingestion_id;
    for (const path of [`ingestions/${id}`, `ingestions/${id}/errors`]) {
      expect((await request(t.http).get(`${SALES_PATH}/${path}`).set('apiKey', other.key)).status).toBe(404);
      expect((await request(t.http).get(`${SALES_PATH}/${path}`).set('apiKey', sibling.key)).status).toBe(200);
    }
    for (const bad of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '1']) {
      const res = await request(t.http).get(`${SALES_PATH}/ingestions/${bad}`).set('apiKey', owner.key);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ message: 'Ingestion not found.' });
    }
  });
});

describe('POST /DataInserterSales/api/sales with any input (property)', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest();
  });
  afterAll(() => t.close());

  const cell = fc.oneof(
    fc.constantFrom('', '10', '10.0', '-1.5e3', '2024-05-31T13:45:00.123Z', '1990-01-01T00:00:00Z', '2024-02-30T00:00:00.000Z', '99999999999', 'x'),
    fc.string({ unit: fc.constantFrom('a', ';', '"', '\n', '\r', '\t', '\\', '{', ']', 'é', '\u0000', '😀') }),
  );
  const csvBody = fc
    .tuple(
      fc.shuffledSubarray([...FIELDS], { minLength: 1 }),
      fc.array(fc.array(cell, { minLength: 1, maxLength: 34 }), { maxLength: 8 }),
      fc.constantFrom('\n', '\r\n'),
    )
    .map(([names, rows, eol]) =>
      [names.join(';'), ...rows.map((r) => r.map((c) => (/[;"\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(';'))].join(eol),
    );
  const jsonBody = fc.oneof(
    fc
      .array(fc.dictionary(fc.constantFrom(...FIELDS, 'Other'), fc.oneof(cell, fc.double(), fc.integer(), fc.constant(null), fc.jsonValue())), { maxLength: 6 })
      .map((a) => JSON.stringify(a)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string(),
  );
  const body = fc.oneof(
    fc.tuple(fc.constant('application/csv'), csvBody),
    fc.tuple(fc.constant('application/json'), jsonBody),
    fc.tuple(
      fc.constantFrom('application/json', 'text/csv', 'text/plain', 'application/octet-stream'),
      fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b)),
    ),
  );

  it('never answers 5xx, and keeps rows only from an accepted upload, exactly as counted', async () => {
    const { key, accountId } = await t.apiKey();
    let kept = 0;
    await fc.assert(
      fc.asyncProperty(body, fc.nat(), async ([type, payload], cut) => {
        const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
        // Sent in two pieces, cut anywhere.
        const at = bytes.length === 0 ? 0 : cut % bytes.length;
        const res = await upload(t.port, { apiKey: key, 'Content-Type': type }, Readable.from([bytes.subarray(0, at), bytes.subarray(at)]));
        expect(res.status).toBeLessThan(500);
        expect([201, 400, 415]).toContain(res.status);
        if (res.status === 201) {
          const s = res.json<Summary>();
          expect(s.received).toBe(s.inserted + s.updated + s.rejected);
          expect(s.errors.length).toBe(Math.min(100, s.error_count));
          kept += s.inserted;
        }
        const stored = (await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1', [accountId]))!.n;
        expect(stored).toBe(kept);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
