import { Readable } from 'node:stream';
import request from 'supertest';
import { eventually } from '@app/testkit';
import { csvText, FIELDS, saleCells } from './support/sale-fixtures';
import { generated, SALES_PATH, startIngest, upload, type IngestApp, type RawResponse } from './support/sales-test';

const CSV = { 'Content-Type': 'application/csv' };

/** A body the test feeds by hand: it starts with the CSV header and then waits. */
function heldBody(): Readable {
  const body = new Readable({ read() {} });
  body.push(FIELDS.join(';') + '\n');
  return body;
}

const runningOf = async (t: IngestApp, accountId: string) =>
  (await t.sql.one<{ n: number }>("SELECT count(*)::int AS n FROM ingest_push.sales_ingestions WHERE account_id = $1 AND status = 'running'", [accountId]))!.n;

describe('ingestion fairness: one account cannot take every upload slot', () => {
  let t: IngestApp;
  beforeAll(async () => {
    // The defaults: 4 uploads per process, 2 per account.
    t = await startIngest();
  });
  afterAll(() => t.close());

  it("answers another account's upload 201 in its normal time while 4 slow clients of one account are connected", async () => {
    const b = await t.apiKey();
    const file = () => generated(['--format', 'csv', '--rows', '2000', '--seed', '3']);
    const started = Date.now();
    expect((await upload(t.port, { apiKey: b.key, ...CSV }, file())).status).toBe(201);
    const normalMs = Date.now() - started;

    const a = await t.apiKey();
    const bodies = [heldBody(), heldBody(), heldBody(), heldBody()];
    const answered: RawResponse[] = [];
    const answers = bodies.map((body) => upload(t.port, { apiKey: a.key, ...CSV }, body).then((r) => (answered.push(r), r)));
    // Two of A's uploads run; the other two are refused at once, naming the account's share.
    await eventually(async () => (answered.length === 2 && (await runningOf(t, a.accountId)) === 2 ? true : undefined));
    expect(answered.map((r) => [r.status, r.headers['retry-after'], r.json().message])).toEqual([
      [503, '5', expect.stringContaining('account')],
      [503, '5', expect.stringContaining('account')],
    ]);

    const during = Date.now();
    const res = await upload(t.port, { apiKey: b.key, ...CSV }, file());
    const duringMs = Date.now() - during;
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ received: 2000, updated: 2000 });
    expect(duringMs).toBeLessThan(Math.max(3 * normalMs, normalMs + 2000));

    for (const body of bodies) body.push(null);
    expect((await Promise.all(answers)).map((r) => r.status).sort()).toEqual([201, 201, 503, 503]);
  }, 60_000);
});

describe('ingestion minimum body rate', () => {
  let t: IngestApp;
  beforeAll(async () => {
    // 2,000 bytes/s over 2 s; the idle timeout stays far away, so only the rate can cut.
    t = await startIngest({ INGEST_MIN_BYTES_PER_SECOND: '2000', INGEST_RATE_WINDOW_SECONDS: '2', INGEST_IDLE_TIMEOUT_MS: '60000' });
  });
  afterAll(() => t.close());

  /** Sends a CSV of `rows` rows, `bytesPerTick` bytes every 100 ms. */
  function paced(rows: number, bytesPerTick: number): { body: Readable; stop(): void } {
    const text = Buffer.from(csvText(Array.from({ length: rows }, (_, i) => saleCells(i + 1))));
    let at = 0;
    const body = new Readable({ read() {} });
    const timer = setInterval(() => {
      body.push(text.subarray(at, at + bytesPerTick));
      at += bytesPerTick;
      if (at >= text.length) {
        clearInterval(timer);
        body.push(null);
      }
    }, 100);
    return { body, stop: () => clearInterval(timer) };
  }

  it('cuts a body slower than the minimum rate with 408, the ingestion cancelled and nothing kept', async () => {
    const { key, accountId } = await t.apiKey();
    // 50 bytes per 100 ms: 500 bytes/s, a quarter of the minimum; it never pauses long enough to be idle.
    const slow = paced(400, 50);
    const started = Date.now();
    const res = await upload(t.port, { apiKey: key, ...CSV }, slow.body);
    slow.stop();
    expect(res.status).toBe(408);
    expect(res.json()).toMatchObject({ message: expect.stringContaining('2000 bytes/s over 2 s'), min_bytes_per_second: 2000, window_seconds: 2 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(Date.now() - started).toBeLessThan(6000);
    const [ingestion] = await t.sql.rows<{ status: string; stage: string | null }>(
      'SELECT status, stage FROM ingest_push.sales_ingestions WHERE account_id = $1',
      [accountId],
    );
    expect(ingestion).toEqual({ status: 'cancelled', stage: null });
    expect(await t.sql.rows('SELECT 1 FROM ingest_push.sales WHERE account_id = $1', [accountId])).toEqual([]);
  });

  it('lets a body at a steady rate above the minimum finish, however long it takes', async () => {
    const { key } = await t.apiKey();
    // 600 bytes per 100 ms: 6,000 bytes/s, for about 4 windows.
    const steady = paced(150, 600);
    const res = await upload(t.port, { apiKey: key, ...CSV }, steady.body);
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ status: 'completed', received: 150 });
  }, 30_000);
});

describe('ingestion bounded work: stored errors and mostly-error files', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest({ INGEST_MAX_STORED_ERRORS: '50' });
  });
  afterAll(() => t.close());

  it('stores at most INGEST_MAX_STORED_ERRORS errors, and the answer and the error CSV count the rest', async () => {
    const { key, accountId } = await t.apiKey();
    const res = await upload(t.port, { apiKey: key, ...CSV }, generated(['--format', 'csv', '--rows', '1000', '--invalid-every', '5']));
    expect(res.status).toBe(201);
    const body = res.json<{ ingestion_id: string; errors: unknown[] }>();
    expect(body).toMatchObject({ received: 1000, inserted: 800, rejected: 200, error_count: 200, errors_not_stored: 150 });
    expect(body.errors).toHaveLength(100);
    expect(
      (await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales_ingestion_errors WHERE ingestion_id = $1', [body.ingestion_id]))!.n,
    ).toBe(50);
    expect((await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1', [accountId]))!.n).toBe(800);

    const csv = await request(t.http).get(`${SALES_PATH}/ingestions/${body.ingestion_id}/errors`).set('apiKey', key).buffer(true);
    const lines = csv.text.trim().split('\n');
    expect(lines).toHaveLength(1 + 50 + 1);
    expect(lines[lines.length - 1]).toBe(';;;150 more errors were counted but not stored');
    const summary = await request(t.http).get(`${SALES_PATH}/ingestions/${body.ingestion_id}`).set('apiKey', key);
    expect(summary.body).toMatchObject({ error_count: 200, errors_not_stored: 150, stage: null });
  });

  it('stops a 4 MiB junk upload early with 400, keeping nothing: the database grows less than 10 MB', async () => {
    const { key, accountId } = await t.apiKey();
    const size = async () => Number((await t.sql.one<{ size: string }>('SELECT pg_database_size(current_database()) AS size'))!.size);
    const before = await size();
    // 2,097,152 lines of `x` after a valid header: each is a record with the wrong number of columns.
    const junk = Buffer.concat([Buffer.from(FIELDS.join(';') + '\n'), Buffer.alloc(4 * 1024 * 1024, 'x\n')]);
    const res = await upload(t.port, { apiKey: key, ...CSV }, junk);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ message: expect.stringContaining('More than half of the first 100000 records'), sample: 100000 });
    const after = await size();
    expect(after - before).toBeLessThan(10 * 1024 * 1024);
    const [ingestion] = await t.sql.rows<{ id: string; status: string }>('SELECT id, status FROM ingest_push.sales_ingestions WHERE account_id = $1', [
      accountId,
    ]);
    expect(ingestion.status).toBe('failed');
    expect(await t.sql.rows('SELECT 1 FROM ingest_push.sales_ingestion_errors WHERE ingestion_id = $1', [ingestion.id])).toEqual([]);
  });

  it('still accepts a small file whose rows are all rejected, listing them (the early stop needs 50,001 rejected records)', async () => {
    const { key } = await t.apiKey();
    const res = await upload(t.port, { apiKey: key, ...CSV }, csvText([saleCells(1, { ProductPrice: 'x' }), saleCells(2, { ProductPrice: 'y' })]));
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ received: 2, rejected: 2, inserted: 0 });
  });
});
