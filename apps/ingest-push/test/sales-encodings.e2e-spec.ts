import { Readable } from 'node:stream';
import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { csvText, saleCells, saleJson } from './support/sale-fixtures';
import { SALES_PATH, startIngest, upload, type IngestApp } from './support/sales-test';

interface Summary {
  ingestion_id: string;
  status: string;
  format: string;
  bytes: number;
  received: number;
  inserted: number;
  rejected: number;
  errors: Array<{ line: number; record: number; field: string; reason: string }>;
}

const CSV = { 'Content-Type': 'application/csv' };
const JSON_TYPE = { 'Content-Type': 'application/json' };
const NDJSON = { 'Content-Type': 'application/x-ndjson' };
const GB = 1024 ** 3;
const MiB = 1024 ** 2;

/** `count` sales of which the numbers in `bad` have a ProductPrice that is not a number. */
function salesWithErrors(count: number, bad: number): Array<Record<string, string>> {
  return Array.from({ length: count }, (_, i) => saleCells(i + 1, i < bad ? { ProductPrice: 'forty' } : {}));
}

/** The bytes as 1-byte chunks, so every multi-byte character is cut between two chunks. */
function byteByByte(bytes: Buffer): Readable {
  let at = 0;
  return new Readable({
    highWaterMark: 1,
    read() {
      this.push(at < bytes.length ? bytes.subarray(at, ++at) : null);
    },
  });
}

describe('POST /DataInserterSales/api/sales: compressed bodies, NDJSON, error budgets', () => {
  let t: IngestApp;

  const salesOf = async (account: string) =>
    (await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1', [account]))!.n;
  const ingestionsOf = (account: string) =>
    t.sql.rows<{ status: string; failure: string | null }>('SELECT status, failure FROM ingest_push.sales_ingestions WHERE account_id = $1', [account]);

  beforeAll(async () => {
    t = await startIngest();
  }, 180_000);
  afterAll(() => t.close());

  describe('Content-Encoding', () => {
    it('stores a gzip CSV file, counting its decompressed bytes', async () => {
      const { key, accountId } = await t.apiKey();
      const text = csvText([1, 2, 3].map((n) => saleCells(n)));
      const res = await upload(t.port, { apiKey: key, ...CSV, 'Content-Encoding': 'gzip' }, gzipSync(text));
      expect(res.status).toBe(201);
      expect(res.json<Summary>()).toMatchObject({ status: 'completed', format: 'csv', received: 3, inserted: 3, rejected: 0, bytes: Buffer.byteLength(text) });
      const row = await t.sql.one<{ store_city: string }>('SELECT store_city FROM ingest_push.sales WHERE account_id = $1 AND product_id = $2', [
        accountId,
        'P-2',
      ]);
      expect(row).toEqual({ store_city: 'São Paulo' });
    });

    it('stores a deflate JSON file and an x-gzip NDJSON file sent in 1-byte chunks', async () => {
      const { key, accountId } = await t.apiKey();
      const json = `[${[1, 2].map((n) => saleJson(saleCells(n))).join(',')}]`;
      const deflated = await upload(t.port, { apiKey: key, ...JSON_TYPE, 'Content-Encoding': 'Deflate' }, deflateSync(json));
      expect(deflated.json<Summary>()).toMatchObject({ status: 'completed', format: 'json', received: 2, inserted: 2 });
      const ndjson = [3, 4].map((n) => saleJson(saleCells(n, { ProductName: `Café ☕ 😀 ${n}` }))).join('\n');
      const gzipped = await upload(t.port, { apiKey: key, ...NDJSON, 'Content-Encoding': 'x-gzip' }, byteByByte(gzipSync(ndjson)));
      expect(gzipped.json<Summary>()).toMatchObject({ status: 'completed', format: 'ndjson', received: 2, inserted: 2 });
      expect(await salesOf(accountId)).toBe(4);
      const names = await t.sql.rows<{ product_name: string }>(
        `SELECT product_name FROM ingest_push.sales WHERE account_id = $1 AND product_id IN ('P-3', 'P-4') ORDER BY product_id`,
        [accountId],
      );
      expect(names.map((r) => r.product_name)).toEqual(['Café ☕ 😀 3', 'Café ☕ 😀 4']);
    });

    it.each(['br', 'compress', 'gzip, gzip', 'gzip, br', 'constructor'])(
      'answers 415 to Content-Encoding %p before reading the body, keeping nothing',
      async (encoding) => {
        const { key, accountId } = await t.apiKey();
        const res = await upload(t.port, { apiKey: key, ...CSV, 'Content-Encoding': encoding }, gzipSync(csvText([saleCells(1)])));
        expect(res.status).toBe(415);
        expect(res.json()).toMatchObject({ message: expect.stringMatching(/gzip or deflate/), accepted: ['gzip', 'deflate', 'identity'] });
        expect(await ingestionsOf(accountId)).toEqual([]);
      },
    );

    it('answers 400 to a body that is not what its Content-Encoding says, or is cut short, keeping nothing', async () => {
      const { key, accountId } = await t.apiKey();
      const text = csvText([1, 2].map((n) => saleCells(n)));
      const plain = await upload(t.port, { apiKey: key, ...CSV, 'Content-Encoding': 'gzip' }, text);
      expect(plain.status).toBe(400);
      expect(plain.json()).toEqual({ message: 'The body is not valid gzip data: incorrect header check.' });
      const whole = gzipSync(text);
      const truncated = await upload(t.port, { apiKey: key, ...CSV, 'Content-Encoding': 'gzip' }, whole.subarray(0, whole.length - 10));
      expect(truncated.status).toBe(400);
      expect(await salesOf(accountId)).toBe(0);
      expect((await ingestionsOf(accountId)).map((i) => i.status)).toEqual(['failed', 'failed']);
    });

    it('cuts a compression bomb (10 GB of spaces once decompressed) at 1 GB with 413, its memory flat, keeping nothing', async () => {
      const { key, accountId } = await t.apiKey();
      // Concatenated gzip members (one stream to gunzip): a valid start, then 16 MiB of spaces per ~16 KB member,
      // made once and sent 640 times: 10 GiB decompressed from ~10 MB, never held whole anywhere.
      const spaces = gzipSync(Buffer.alloc(16 * MiB, 0x20), { level: 9 });
      const members = 640;
      let sent = 0;
      const body = new Readable({
        read() {
          if (sent === 0) this.push(gzipSync(`[${saleJson(saleCells(1))},`));
          this.push(++sent > members ? null : spaces);
        },
      });
      global.gc?.();
      const baseline = process.memoryUsage.rss();
      let peak = baseline;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
      const res = await upload(t.port, { apiKey: key, ...JSON_TYPE, 'Content-Encoding': 'gzip' }, body);
      clearInterval(sampler);
      expect(res.status).toBe(413);
      expect(res.json()).toMatchObject({ limit_bytes: GB });
      // Cut at the limit: it decompressed a little over 1 GiB (what the client sent after the answer is read and dropped).
      expect(await salesOf(accountId)).toBe(0);
      const [ingestion] = await t.sql.rows<{ status: string; bytes: string }>('SELECT status, bytes FROM ingest_push.sales_ingestions WHERE account_id = $1', [
        accountId,
      ]);
      expect(ingestion.status).toBe('failed');
      expect(Number(ingestion.bytes)).toBeGreaterThan(GB);
      expect(Number(ingestion.bytes)).toBeLessThan(GB + 16 * MiB);
      // The app and this client share the process: all of it grew by less than 64 MiB while 1 GiB went through.
      process.stdout.write(`compression bomb: ${sent} members sent, peak RSS growth ${Math.round((peak - baseline) / MiB)} MiB\n`);
      expect(peak - baseline).toBeLessThan(64 * MiB);
    }, 180_000);
  });

  it('property: any bytes sent as gzip or deflate are a 201 or a 400, never a 5xx, and keep rows only when accepted', async () => {
    const { key, accountId } = await t.apiKey();
    let kept = 0;
    const payload = fc.oneof(
      fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)),
      fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 3 }).map((ns) => gzipSync(csvText(ns.map((n) => saleCells(n))))),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('gzip', 'deflate', 'x-gzip'), fc.constantFrom(CSV, NDJSON, JSON_TYPE), payload, async (encoding, type, bytes) => {
        const res = await upload(t.port, { apiKey: key, ...type, 'Content-Encoding': encoding }, bytes);
        expect([201, 400]).toContain(res.status);
        if (res.status === 201) kept += res.json<Summary>().inserted;
        expect(await salesOf(accountId)).toBe(kept);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('counts compressed bytes against the limit too: endless empty gzip members are cut with 413', async () => {
    const { key, accountId } = await t.apiKey();
    const empty = gzipSync(Buffer.alloc(0));
    const batch = Buffer.concat(Array.from({ length: 50_000 }, () => empty));
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent === 0) this.push(gzipSync('['));
        sent += batch.length;
        this.push(sent > 1.5 * GB ? null : batch);
      },
    });
    const res = await upload(t.port, { apiKey: key, ...JSON_TYPE, 'Content-Encoding': 'gzip' }, body);
    expect(res.status).toBe(413);
    expect((await ingestionsOf(accountId)).map((i) => i.status)).toEqual(['failed']);
  }, 180_000);

  describe('NDJSON', () => {
    it('stores one Sale per line; errors name their lines; blank lines and CRLF are fine', async () => {
      const { key, accountId } = await t.apiKey();
      const lines = [
        saleJson(saleCells(1)),
        '{"OrderId": ',
        '',
        saleJson(saleCells(2)).replace('"ProductPrice":40.25', '"ProductPrice":"forty"'),
        '[1, 2]',
        saleJson(saleCells(3)),
      ];
      const res = await upload(t.port, { apiKey: key, ...NDJSON }, `\uFEFF${lines.join('\r\n')}\r\n`);
      expect(res.status).toBe(201);
      const body = res.json<Summary>();
      expect(body).toMatchObject({ status: 'completed', format: 'ndjson', received: 5, inserted: 2, rejected: 3 });
      expect(body.errors.map((e) => [e.line, e.record, e.field])).toEqual([
        [2, 2, ''],
        [4, 3, 'ProductPrice'],
        [5, 4, ''],
      ]);
      expect(body.errors[0].reason).toBe('is not valid JSON');
      expect(await salesOf(accountId)).toBe(2);
    });

    it('reads characters cut between 1-byte chunks', async () => {
      const { key, accountId } = await t.apiKey();
      const text = [1, 2].map((n) => saleJson(saleCells(n, { CustomerName: 'Zoë Ñandú 漢字 🎉' }))).join('\n') + '\n';
      const res = await upload(t.port, { apiKey: key, ...NDJSON }, byteByByte(Buffer.from(text)));
      expect(res.json<Summary>()).toMatchObject({ status: 'completed', received: 2, inserted: 2, rejected: 0 });
      const rows = await t.sql.rows<{ customer_name: string }>('SELECT customer_name FROM ingest_push.sales WHERE account_id = $1', [accountId]);
      expect(rows.map((r) => r.customer_name)).toEqual(['Zoë Ñandú 漢字 🎉', 'Zoë Ñandú 漢字 🎉']);
    });
  });

  describe('error budgets', () => {
    const send = (key: string, query: string, rows: Array<Record<string, string>>) =>
      upload(t.port, { apiKey: key, ...CSV }, csvText(rows), `${SALES_PATH}?${query}`);

    it('keeps an upload exactly at max_error_ratio and rolls back one over it with 422 naming the ratio', async () => {
      const { key, accountId } = await t.apiKey();
      const at = await send(key, 'max_error_ratio=0.05', salesWithErrors(100, 5));
      expect(at.status).toBe(201);
      expect(at.json<Summary>()).toMatchObject({ received: 100, inserted: 95, rejected: 5 });

      const other = await t.apiKey();
      const over = await send(other.key, 'max_error_ratio=0.05', salesWithErrors(100, 6));
      expect(over.status).toBe(422);
      expect(over.json()).toMatchObject({ received: 100, rejected: 6, error_ratio: 0.06, max_error_ratio: 0.05 });
      expect(over.json<{ message: string }>().message).toMatch(/error ratio 0\.06.*max_error_ratio 0\.05/);
      expect(await salesOf(other.accountId)).toBe(0);
      expect(
        await t.sql.rows(
          'SELECT 1 FROM ingest_push.sales_ingestion_errors e JOIN ingest_push.sales_ingestions i ON i.id = e.ingestion_id WHERE i.account_id = $1',
          [other.accountId],
        ),
      ).toEqual([]);
      const [ingestion] = await ingestionsOf(other.accountId);
      expect(ingestion.status).toBe('failed');
      expect(ingestion.failure).toMatch(/max_error_ratio 0\.05/);
      expect(await salesOf(accountId)).toBe(95);
    });

    it('keeps an upload exactly at max_errors and stops one over it with 422 at the record that passes it', async () => {
      const { key, accountId } = await t.apiKey();
      expect((await send(key, 'max_errors=5', salesWithErrors(50, 5))).status).toBe(201);
      expect((await send(key, 'max_errors=0', salesWithErrors(50, 0))).status).toBe(201);
      const before = await salesOf(accountId);
      const over = await send(key, 'max_errors=5', salesWithErrors(50, 6));
      expect(over.status).toBe(422);
      expect(over.json()).toMatchObject({ rejected: 6, max_errors: 5 });
      expect(await salesOf(accountId)).toBe(before);
      // Both at once: either one passed is enough.
      const both = await send(key, 'max_errors=100&max_error_ratio=0.1', salesWithErrors(50, 6));
      expect(both.status).toBe(422);
      expect(both.json()).toMatchObject({ max_errors: 100, max_error_ratio: 0.1, error_ratio: 0.12 });
    });

    it('without a budget keeps the valid records of a file with 40 % errors, as before', async () => {
      const { key, accountId } = await t.apiKey();
      const res = await send(key, '', salesWithErrors(100, 40));
      expect(res.json<Summary>()).toMatchObject({ status: 'completed', received: 100, inserted: 60, rejected: 40 });
      expect(await salesOf(accountId)).toBe(60);
    });

    it('a rolled-back upload leaves another account with the same sale lines untouched', async () => {
      const a = await t.apiKey();
      const b = await t.apiKey();
      expect((await send(b.key, '', salesWithErrors(20, 0))).status).toBe(201);
      const rows = salesWithErrors(20, 10).map((r) => ({ ...r, StoreName: 'from A' }));
      expect((await send(a.key, 'max_error_ratio=0.2', rows)).status).toBe(422);
      expect(await salesOf(a.accountId)).toBe(0);
      const names = await t.sql.rows<{ store_name: string }>('SELECT DISTINCT store_name FROM ingest_push.sales WHERE account_id = $1', [b.accountId]);
      expect(names).toEqual([{ store_name: 'Main' }]);
      expect(await salesOf(b.accountId)).toBe(20);
    });

    it('property: any value of max_error_ratio and max_errors is a 201 or a 422, never a 5xx; valid ones are honoured', async () => {
      const { key } = await t.apiKey();
      const rows = salesWithErrors(10, 1);
      const anyValue = fc.oneof(
        fc.string(),
        fc.string({ unit: 'binary' }),
        fc.double().map(String),
        fc.integer().map(String),
        fc.constantFrom('1e-2', '-0', '0x1', ' 1', '1.', 'NaN'),
      );
      await fc.assert(
        fc.asyncProperty(fc.dictionary(fc.constantFrom('max_error_ratio', 'max_errors'), anyValue), async (query) => {
          const text = Object.entries(query)
            .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
            .join('&');
          const res = await send(key, text, rows);
          expect([201, 422]).toContain(res.status);
        }),
        { numRuns: 40 },
      );
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 3 }), async (thousandths, maxErrors) => {
          const ratio = (thousandths / 1000).toFixed(3);
          const res = await send(key, `max_error_ratio=${ratio}&max_errors=${maxErrors}`, rows);
          // One error in ten records: a ratio of 0.1 and one error.
          const kept = 1 / 10 <= Number(ratio) && 1 <= maxErrors;
          expect(res.status).toBe(kept ? 201 : 422);
        }),
        { numRuns: 40 },
      );
    }, 120_000);
  });
});
