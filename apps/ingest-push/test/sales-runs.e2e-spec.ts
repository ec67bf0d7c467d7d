import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { Client } from 'pg';
import request from 'supertest';
import { eventually, metricSample, workerDatabaseUrl } from '@app/testkit';
import { csvText, saleCells } from './support/sale-fixtures';
import { startIngestChild, type IngestChild } from './support/ingest-child';
import { SALES_PATH, startIngest, upload, type IngestApp } from './support/sales-test';

jest.setTimeout(90_000);

const CSV = { 'Content-Type': 'application/csv' };

interface IngestionRow {
  id: string;
  status: string;
  stage: string | null;
  failure: string | null;
}

const ingestionsOf = (t: IngestApp, accountId: string) =>
  t.sql.rows<IngestionRow>('SELECT id, status, stage, failure FROM ingest_push.sales_ingestions WHERE account_id = $1 ORDER BY started_at', [accountId]);

const salesOf = async (t: IngestApp, accountId: string) =>
  (await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales WHERE account_id = $1', [accountId]))!.n;

/** A CSV body that sends its first `sent` rows of `rows` and then waits for the test. */
function halfSent(rows = 400, sent = rows / 2): { body: Readable; rest(): void } {
  const text = csvText(Array.from({ length: rows }, (_, i) => saleCells(i + 1)));
  const cut =
    text
      .split('\n')
      .slice(0, sent + 1)
      .join('\n').length + 1;
  const body = new Readable({ read() {} });
  body.push(text.slice(0, cut));
  return {
    body,
    rest: () => {
      body.push(text.slice(cut));
      body.push(null);
    },
  };
}

/** The running ingestion of the account once it has read some bytes. */
const runningWithBytes = (t: IngestApp, accountId: string) =>
  eventually(
    async () =>
      (await t.sql.one<{ id: string }>("SELECT id FROM ingest_push.sales_ingestions WHERE account_id = $1 AND status = 'running' AND bytes > 0", [accountId]))
        ?.id,
  );

describe('concurrent overlapping uploads of one account', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest({ INGEST_MAX_CONCURRENT_UPLOADS: '8', INGEST_MAX_CONCURRENT_UPLOADS_PER_ACCOUNT: '8', DB_POOL_SIZE: '12' });
  });
  afterAll(() => t.close());

  it('never answer 500: the merges take turns, every upload is answered 201, and each line holds one upload whole', async () => {
    for (let round = 0; round < 3; round++) {
      const { key, accountId } = await t.apiKey();
      // Five windows of 2,000 lines over 4,000, half of them in reverse order: the same lines, locked in opposite orders.
      const files = Array.from({ length: 5 }, (_, u) => {
        const numbers = Array.from({ length: 2000 }, (_, i) => u * 500 + i + 1);
        if (u % 2 === 1) numbers.reverse();
        return { numbers, text: csvText(numbers.map((n) => saleCells(n, { StoreName: `upload-${u}` }))) };
      });
      const answers = await Promise.all(files.map((f) => upload(t.port, { apiKey: key, ...CSV }, f.text)));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
      const ids = answers.map((a) => a.json<{ ingestion_id: string }>().ingestion_id);
      const rows = await t.sql.rows<{ order_id: string; store_name: string; ingestion_id: string }>(
        'SELECT order_id, store_name, ingestion_id FROM ingest_push.sales WHERE account_id = $1',
        [accountId],
      );
      expect(rows).toHaveLength(4000);
      // Each line was last written by one upload, and holds that upload's version.
      for (const row of rows) {
        const u = ids.indexOf(row.ingestion_id);
        expect(row.store_name).toBe(`upload-${u}`);
        expect(files[u].numbers).toContain(Number(row.order_id.slice('ORD-'.length)));
      }
      const inserted = answers.reduce((sum, a) => sum + a.json<{ inserted: number }>().inserted, 0);
      expect(inserted).toBe(4000);
    }
  });
});

describe('an ingestion id chosen by the client, its stage, and DELETE across instances', () => {
  let t: IngestApp;
  let replica: IngestApp;
  beforeAll(async () => {
    t = await startIngest({ INGEST_PROGRESS_INTERVAL_MS: '100' });
    // Another instance of the same deployment (same database).
    replica = await startIngest({ INGEST_PROGRESS_INTERVAL_MS: '100' });
  });
  afterAll(async () => {
    await replica.close();
    await t.close();
  });

  it('uses X-Ingestion-Id as the id; a reuse is 409 with its status for the account, without it for another; a malformed one is 400', async () => {
    const owner = await t.apiKey();
    const stranger = await t.apiKey();
    const id = randomUUID();
    const first = await upload(t.port, { apiKey: owner.key, 'X-Ingestion-Id': id, ...CSV }, csvText([saleCells(1)]));
    expect(first.status).toBe(201);
    expect(first.json()).toMatchObject({ ingestion_id: id, status: 'completed', stage: null });

    const again = await upload(t.port, { apiKey: owner.key, 'X-Ingestion-Id': id.toUpperCase(), ...CSV }, csvText([saleCells(2)]));
    expect(again.status).toBe(409);
    expect(again.json()).toEqual({ message: expect.stringContaining('completed'), ingestion_id: id, status: 'completed' });
    const theirs = await upload(t.port, { apiKey: stranger.key, 'X-Ingestion-Id': id, ...CSV }, csvText([saleCells(2)]));
    expect(theirs.status).toBe(409);
    expect(theirs.json()).toEqual({ message: 'This ingestion id is already in use.', ingestion_id: id });
    expect(await salesOf(t, owner.accountId)).toBe(1);
    expect(await salesOf(t, stranger.accountId)).toBe(0);

    const bad = await upload(t.port, { apiKey: owner.key, 'X-Ingestion-Id': 'part-1', ...CSV }, csvText([saleCells(3)]));
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ message: expect.stringContaining('X-Ingestion-Id') });
  });

  it('shows the stage while it runs; DELETE on another instance cancels it there: 202, the upload answered 409, nothing kept', async () => {
    const { key, accountId } = await t.apiKey();
    const id = randomUUID();
    const { body } = halfSent();
    const answer = upload(t.port, { apiKey: key, 'X-Ingestion-Id': id, ...CSV }, body);
    const running = await eventually(async () => {
      const got = await request(replica.http).get(`${SALES_PATH}/ingestions/${id}`).set('apiKey', key);
      return got.status === 200 && got.body.received > 0 ? got.body : undefined;
    });
    expect(running).toMatchObject({ ingestion_id: id, status: 'running', stage: 'receiving', bytes: expect.any(Number), finished_at: null });

    const cancelled = await request(replica.http).delete(`${SALES_PATH}/ingestions/${id}`).set('apiKey', key);
    expect(cancelled.status).toBe(202);
    // The instance running it may already have ended it by the time the summary is read.
    expect(cancelled.body).toMatchObject({ ingestion_id: id, status: expect.stringMatching(/^(running|cancelled)$/) });
    const res = await answer;
    expect(res.status).toBe(409);
    expect(res.json()).toMatchObject({ ingestion_id: id, status: 'cancelled' });

    const after = await request(replica.http).get(`${SALES_PATH}/ingestions/${id}`).set('apiKey', key);
    expect(after.body).toMatchObject({ status: 'cancelled', stage: null, inserted: 0 });
    expect(await salesOf(t, accountId)).toBe(0);
    const twice = await request(t.http).delete(`${SALES_PATH}/ingestions/${id}`).set('apiKey', key);
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({ message: 'The ingestion already ended: cancelled.', ingestion_id: id, status: 'cancelled' });
  });

  it('answers DELETE 404 for an unknown id or another account, and 409 naming the status of a completed one', async () => {
    const owner = await t.apiKey();
    const other = await t.apiKey();
    const done = (await upload(t.port, { apiKey: owner.key, ...CSV }, csvText([saleCells(1)]))).json<{ ingestion_id: string }>().ingestion_id;
    expect((await request(t.http).delete(`${SALES_PATH}/ingestions/${done}`).set('apiKey', other.key)).status).toBe(404);
    expect((await request(t.http).delete(`${SALES_PATH}/ingestions/${randomUUID()}`).set('apiKey', owner.key)).status).toBe(404);
    expect((await request(t.http).delete(`${SALES_PATH}/ingestions/nope`).set('apiKey', owner.key)).status).toBe(404);
    const ended = await request(t.http).delete(`${SALES_PATH}/ingestions/${done}`).set('apiKey', owner.key);
    expect(ended.status).toBe(409);
    expect(ended.body).toMatchObject({ status: 'completed' });
    expect(await salesOf(t, owner.accountId)).toBe(1);
  });

  it('shows `merging` while the merge waits its turn, and a cancel then keeps nothing', async () => {
    const { key, accountId } = await t.apiKey();
    // Another merge of the same account holds its turn.
    const holder = new Client({ connectionString: await workerDatabaseUrl() });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`sales-merge:${accountId}`]);
      const id = randomUUID();
      const answer = upload(t.port, { apiKey: key, 'X-Ingestion-Id': id, ...CSV }, csvText(Array.from({ length: 50 }, (_, i) => saleCells(i + 1))));
      const merging = await eventually(async () => {
        const got = await request(t.http).get(`${SALES_PATH}/ingestions/${id}`).set('apiKey', key);
        return got.body.stage === 'merging' ? got.body : undefined;
      });
      expect(merging).toMatchObject({ status: 'running', received: 50 });
      expect((await request(replica.http).delete(`${SALES_PATH}/ingestions/${id}`).set('apiKey', key)).status).toBe(202);
      await holder.query('SELECT pg_advisory_unlock_all()');
      const res = await answer;
      expect(res.status).toBe(409);
      expect(res.json()).toMatchObject({ status: 'cancelled' });
      expect(await salesOf(t, accountId)).toBe(0);
      expect(await ingestionsOf(t, accountId)).toEqual([{ id, status: 'cancelled', stage: null, failure: expect.stringContaining('cancelled') }]);
    } finally {
      await holder.end();
    }
  });
});

describe('a PostgreSQL backend terminated mid-upload', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest();
  });
  afterAll(() => t.close());

  it('answers 503 with Retry-After, records the ingestion failed, and serves the next upload', async () => {
    const { key, accountId } = await t.apiKey();
    const { body } = halfSent();
    const answer = upload(t.port, { apiKey: key, ...CSV }, body);
    await runningWithBytes(t, accountId);
    const copying = await t.sql.rows<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY %' AND pid <> pg_backend_pid()",
    );
    expect(copying).toHaveLength(1);
    await t.sql.rows('SELECT pg_terminate_backend($1)', [copying[0].pid]);
    const res = await answer;
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ retry_after: 5 });
    const [ingestion] = await ingestionsOf(t, accountId);
    expect(ingestion).toMatchObject({ status: 'failed', failure: expect.stringContaining('connection was lost') });
    expect(await salesOf(t, accountId)).toBe(0);
    expect((await upload(t.port, { apiKey: key, ...CSV }, csvText([saleCells(1)]))).status).toBe(201);
  });
});

describe('a client that disconnects mid-upload (the service in a process of its own, logging)', () => {
  let t: IngestApp;
  let child: IngestChild | undefined;
  beforeAll(async () => {
    t = await startIngest();
    child = await startIngestChild({ LOG_LEVEL: 'info' });
  });
  afterAll(async () => {
    await child?.kill();
    await t.close();
  });

  it('is logged at info as a client disconnect, the ingestion is cancelled, and the access line and /metrics say 499', async () => {
    const { key, accountId } = await t.apiKey();
    const { body } = halfSent();
    const answer = upload(child!.port, { apiKey: key, ...CSV }, body).then(
      () => 'answered',
      () => 'failed',
    );
    const id = await runningWithBytes(t, accountId);
    body.destroy(new Error('client went away'));
    expect(await answer).toBe('failed');
    const ended = await eventually(async () => (await ingestionsOf(t, accountId)).find((r) => r.status !== 'running'));
    expect(ended).toEqual({ id, status: 'cancelled', stage: null, failure: expect.stringContaining('client closed the connection') });
    expect(await salesOf(t, accountId)).toBe(0);

    const lines = child!.lines;
    const access = await eventually(() => lines.find((l) => l.url === SALES_PATH && l.method === 'POST' && l.statusCode === 499));
    expect(access).toMatchObject({ level: 30, msg: 'request aborted' });
    expect(lines.find((l) => l.ingestionId === id && l.msg === 'client disconnected mid-upload; ingestion cancelled')).toMatchObject({ level: 30 });
    expect(lines.filter((l) => (l.level as number) >= 50)).toEqual([]);

    const metrics = await new Promise<string>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port: child!.port, path: '/metrics' }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    expect(metricSample(metrics, 'http_request_duration_seconds_count', { method: 'POST', status: '499' })).toBe(1);
  });
});

describe('a process killed (kill -9) mid-upload', () => {
  let keys: IngestApp;
  let restarted: IngestApp | undefined;
  const children: IngestChild[] = [];
  beforeAll(async () => {
    keys = await startIngest();
  });
  afterAll(async () => {
    for (const c of children) await c.kill();
    await restarted?.close();
    await keys.close();
  });

  /** Starts an upload on a child process, waits until it has heartbeats, and kills the process. */
  async function killMidUpload(): Promise<{ id: string; accountId: string }> {
    const child = await startIngestChild({ INGEST_PROGRESS_INTERVAL_MS: '100' });
    children.push(child);
    const { key, accountId } = await keys.apiKey();
    const { body } = halfSent();
    const answer = upload(child.port, { apiKey: key, ...CSV }, body).catch(() => 'reset');
    const id = await eventually(
      async () =>
        (
          await keys.sql.one<{ id: string }>(
            "SELECT id FROM ingest_push.sales_ingestions WHERE account_id = $1 AND status = 'running' AND heartbeat_at > started_at + interval '200 ms'",
            [accountId],
          )
        )?.id,
    );
    await child.kill();
    body.destroy();
    await answer;
    return { id, accountId };
  }

  const statusOf = async (id: string) =>
    (await keys.sql.one<IngestionRow>('SELECT id, status, stage, failure FROM ingest_push.sales_ingestions WHERE id = $1', [id]))!;

  it('closes the ingestion as failed, "interrupted (the service stopped)", when a process starts after the heartbeat went stale', async () => {
    const { id, accountId } = await killMidUpload();
    expect((await statusOf(id)).status).toBe('running');
    await eventually(async () =>
      (await keys.sql.one("SELECT 1 FROM ingest_push.sales_ingestions WHERE id = $1 AND heartbeat_at < now() - interval '2 s'", [id])) ? true : undefined,
    );
    restarted = await startIngest({ INGEST_STALE_AFTER_SECONDS: '2' });
    // Closed by the sweep at start, before the app served anything.
    expect(await statusOf(id)).toEqual({ id, status: 'failed', stage: null, failure: expect.stringContaining('interrupted (the service stopped)') });
    expect(await salesOf(keys, accountId)).toBe(0);
  });

  it('closes it while a process runs, by the periodic sweep', async () => {
    const { id } = await killMidUpload();
    const closed = await eventually(async () => {
      const row = await statusOf(id);
      return row.status === 'running' ? undefined : row;
    });
    expect(closed).toMatchObject({ status: 'failed', failure: expect.stringContaining('interrupted (the service stopped)') });
  });
});
