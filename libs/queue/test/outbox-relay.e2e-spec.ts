import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Sql } from '@app/database';
import { eventually, freePort, startOwnRedis as startRedis, stopOwnRedis as stopRedis, testRedis, workerDatabaseUrl } from '@app/testkit';
import { DataSource } from 'typeorm';
import type { LaneItem, LaneJob } from '../src/lane-job';
import { OutboxRelay, type OutboxSpec } from '../src/outbox-relay';
import type { QueueConnection } from '../src/queue-connection';
import { QueueProducer } from '../src/queue-producer';
import { QueueWorker, type Job } from '../src/queue-worker';

jest.setTimeout(30_000);

interface Item {
  id: string;
  k: string;
  attempts: number;
}
type JobData = LaneJob;

/**
 * A small app of the queue lib's own: an outbox table `items` (key `k`), a producer, a
 * worker that marks items done, and the relay between them, on the real PostgreSQL and Redis.
 */
class ItemWorker extends QueueWorker<JobData> {
  /** Item id -> how many times a job carried it to this worker. */
  readonly seen = new Map<string, number>();
  delayMs = 0;
  started?: () => void;

  constructor(
    queue: string,
    private readonly db: Sql,
    private readonly table: string,
  ) {
    super(queue);
  }

  protected async process(job: Job<JobData>): Promise<void> {
    this.started?.();
    const ids = job.data.items.map((item) => item.id);
    for (const id of ids) this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    await this.db.rows(
      `UPDATE ${this.table} t SET attempts = attempts + 1, queued_at = NULL, next_attempt_at = NULL, done_at = now()
       FROM unnest($1::bigint[], $2::int[]) AS x(id, attempt) WHERE t.id = x.id AND t.attempts = x.attempt - 1`,
      [ids, job.data.items.map((item) => item.attempt)],
    );
  }
}

let dataSource: DataSource;
let db: Sql;

beforeAll(async () => {
  dataSource = await new DataSource({ type: 'postgres', url: await workerDatabaseUrl(), poolSize: 6 }).initialize();
  db = new Sql(dataSource);
  await db.rows('CREATE SCHEMA IF NOT EXISTS queue_test');
});
afterAll(() => dataSource?.destroy());

async function newTable(): Promise<string> {
  const table = `queue_test.items_${randomUUID().slice(0, 8)}`;
  await db.rows(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, k text NOT NULL, attempts int NOT NULL DEFAULT 0,
    next_attempt_at timestamptz DEFAULT now(), queued_at timestamptz, done_at timestamptz)`);
  return table;
}

/** The run's Redis (or Redis Cluster), or a server of the test's own at `redisUrl`. */
function connection(redisUrl?: string): QueueConnection {
  return { ...(redisUrl ? { url: redisUrl } : testRedis()), redisPrefix: `test:${process.env.TEST_RUN_ID}:${randomUUID().slice(0, 8)}:` };
}

function spec(table: string, overrides: Partial<OutboxSpec<Item, LaneItem>> = {}): OutboxSpec<Item, LaneItem> {
  return {
    table,
    keyColumn: 'k',
    keys: `SELECT DISTINCT k AS key FROM ${table}`,
    returning: 't.id::text AS id, t.k, t.attempts',
    perKey: 1000,
    batch: 500,
    intervalMs: 100,
    sweepMs: 600_000,
    // Three items to a job, one key per job.
    job: 'items',
    key: (row) => row.k,
    item: (row) => ({ id: row.id, attempt: row.attempts + 1 }),
    itemsPerJob: 3,
    ...overrides,
  };
}

async function insert(table: string, k: string, n: number, dueInSeconds = 0): Promise<void> {
  await db.rows(`INSERT INTO ${table} (k, next_attempt_at) SELECT $1, now() + make_interval(secs => $3) FROM generate_series(1, $2)`, [k, n, dueInSeconds]);
}

const count = async (table: string, where: string) => (await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))!.n;

/** A fresh outbox holding `due` items per key, and `n` relays on it sharing one producer (closed afterwards). */
async function withRelays(
  due: Record<string, number>,
  n: number,
  overrides: Partial<OutboxSpec<Item, LaneItem>>,
  test: (table: string, relays: Array<OutboxRelay<Item, LaneItem>>) => Promise<void>,
): Promise<void> {
  const table = await newTable();
  for (const [k, items] of Object.entries(due)) await insert(table, k, items);
  const producer = new QueueProducer<JobData>('items', connection());
  try {
    await test(
      table,
      Array.from({ length: n }, () => new OutboxRelay(db, producer, spec(table, overrides))),
    );
  } finally {
    await producer.close();
  }
}

/** Waits until all `n` items of the outbox are done, and checks that a job carried each to the worker exactly once. */
async function allDoneOnce(table: string, worker: ItemWorker, n: number): Promise<void> {
  await eventually(async () => ((await count(table, 'done_at IS NOT NULL')) === n ? true : undefined));
  expect([...worker.seen.values()]).toEqual(Array(n).fill(1));
}

/** Stops what a lost-jobs test started, its own redis-server last. */
async function closeAll(worker: ItemWorker, relay: OutboxRelay<Item, LaneItem>, producer: QueueProducer<JobData>, redis?: ChildProcess): Promise<void> {
  await worker.close();
  await relay.stop();
  await producer.close();
  if (redis) await stopRedis(redis);
}

/** A claim whose transaction stays open, its rows marked and not committed, until `release`. */
function heldClaim(relay: OutboxRelay<Item, LaneItem>): { marked: Promise<void>; release: () => void; done: Promise<number> } {
  let release!: () => void;
  let onMarked!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const marked = new Promise<void>((r) => (onMarked = r));
  const done = relay.claim(async () => {
    onMarked();
    await held;
  });
  return { marked, release, done };
}

describe('OutboxRelay', () => {
  it('moves due rows once, several to a job, at most perKey queued per key; rows not yet due wait', async () => {
    const table = await newTable();
    await insert(table, 'busy', 30);
    await insert(table, 'quiet', 2);
    await insert(table, 'quiet', 5, 3600);
    const conn = connection();
    const producer = new QueueProducer<JobData>('items', conn);
    const relay = new OutboxRelay(db, producer, spec(table, { perKey: 4 }));
    try {
      expect(await relay.claim()).toBe(6); // 4 busy + 2 quiet
      expect(await relay.claim()).toBe(0); // busy is at its cap, quiet has nothing due
      expect(await count(table, `k = 'busy' AND queued_at IS NOT NULL`)).toBe(4);
      const jobs: JobData[] = [];
      for await (const data of producer.liveJobs()) jobs.push(data);
      expect(jobs.map((j) => j.items.length).sort()).toEqual([1, 2, 3]);

      const worker = new ItemWorker('items', db, table);
      worker.start(conn, 4, () => void relay.requeueLost());
      relay.start();
      await eventually(async () => ((await count(table, 'done_at IS NOT NULL')) === 32 ? true : undefined));
      await worker.close();
      expect([...worker.seen.values()].every((n) => n === 1)).toBe(true);
      expect(worker.seen.size).toBe(32);
      expect(await count(table, 'done_at IS NULL')).toBe(5);
    } finally {
      await relay.stop();
      await producer.close();
    }
  });

  it('with keyCaps, holds each key to its own cap from `keys`, never above perKey', async () => {
    const table = await newTable();
    for (const k of ['small', 'large', 'huge']) await insert(table, k, 10);
    const keys = `SELECT k AS key, CASE k WHEN 'small' THEN 2 WHEN 'large' THEN 4 ELSE 100 END AS cap FROM (SELECT DISTINCT k FROM ${table}) x`;
    const producer = new QueueProducer<JobData>('items', connection());
    try {
      const relay = new OutboxRelay(db, producer, spec(table, { keys, keyCaps: true, perKey: 5 }));
      expect(await relay.claim()).toBe(2 + 4 + 5);
      expect(await relay.claim()).toBe(0);
      expect(await count(table, `k = 'small' AND queued_at IS NOT NULL`)).toBe(2);
      expect(await count(table, `k = 'huge' AND queued_at IS NOT NULL`)).toBe(5);
    } finally {
      await producer.close();
    }
  });

  it('with owners, takes turns between them in each claim and holds each owner to perOwner across its keys and relays', async () => {
    const table = await newTable();
    // Owner b floods five keys; owner a's one row is due last of all.
    for (let i = 1; i <= 5; i++) await insert(table, `b-${i}`, 20);
    await insert(table, 'a-1', 1);
    const keys = `SELECT k AS key, split_part(k, '-', 1) AS owner FROM (SELECT DISTINCT k FROM ${table}) x`;
    const producer = new QueueProducer<JobData>('items', connection());
    try {
      const [first, second] = [0, 1].map(() => new OutboxRelay(db, producer, spec(table, { keys, perOwner: 8, batch: 3 })));
      // Turn 1 of every owner comes before anyone's turn 2: a's row is in the first, small claim.
      expect(await first.claim()).toBe(3);
      expect(await count(table, `k = 'a-1' AND queued_at IS NOT NULL`)).toBe(1);
      // Two relays at once never take b past its 8, whatever its keys.
      for (let round = 0; round < 4; round++) await Promise.all([first.claim(), second.claim()]);
      expect(await count(table, `k LIKE 'b-%' AND queued_at IS NOT NULL`)).toBe(8);
      expect(await first.claim()).toBe(0);
      // Room again for b once some of its rows are done.
      await db.rows(
        `UPDATE ${table} SET queued_at = NULL, next_attempt_at = NULL WHERE id IN (SELECT id FROM ${table} WHERE k LIKE 'b-%' AND queued_at IS NOT NULL LIMIT 2)`,
      );
      expect(await first.claim()).toBe(2);
    } finally {
      await producer.close();
    }
  });

  it('never hands one row to two relays running at once', () =>
    withRelays({ a: 300, b: 300 }, 3, { batch: 100 }, async (_, relays) => {
      const claimed: string[] = [];
      const collect = (relay: OutboxRelay<Item, LaneItem>) =>
        relay.claim(async (rows) => {
          claimed.push(...rows.map((r) => r.id));
          await new Promise((r) => setTimeout(r, 20));
        });
      for (let round = 0; round < 3; round++) await Promise.all(relays.map(collect));
      expect(claimed.length).toBe(600);
      expect(new Set(claimed).size).toBe(600);
    }));

  it('keeps perKey across relays claiming at once: a claim waits for the other to commit, then counts its rows', () =>
    withRelays({ a: 10 }, 2, { perKey: 4 }, async (table, [first, second]) => {
      // The first relay has marked its 4 rows and not committed yet when the second one claims.
      const firstClaim = heldClaim(first);
      await firstClaim.marked;
      let secondClaimed: number | undefined;
      const secondDone = second.claim().then((n) => (secondClaimed = n));
      const waiting = `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
      // Either it waits for the first claim (as it must), or it went ahead and claimed rows of its own.
      await eventually(async () => (secondClaimed !== undefined || (await db.one<{ n: number }>(waiting))!.n > 0 ? true : undefined));
      firstClaim.release();
      await Promise.all([firstClaim.done, secondDone]);
      expect(secondClaimed).toBe(0);
      expect(await count(table, 'queued_at IS NOT NULL')).toBe(4);
    }));

  it('ends a claim that sits idle past its limit (a frozen replica), so the other relays take their turn', () =>
    withRelays({ a: 3 }, 2, { claimIdleLimitMs: 300 }, async (table, [frozen, other]) => {
      const stuck = heldClaim(frozen);
      await stuck.marked;
      const outcome = stuck.done.then(
        () => 'committed',
        () => 'ended',
      );
      // Waits for its turn, then gets every row: the frozen claim's marks were rolled back.
      expect(await other.claim()).toBe(3);
      stuck.release();
      expect(await outcome).toBe('ended');
      expect(await count(table, 'queued_at IS NOT NULL')).toBe(3);
    }));

  it('rolls back the claim when the queue refuses the jobs: the rows stay due', () =>
    withRelays({ a: 3 }, 1, {}, async (table, [relay]) => {
      await expect(relay.claim(async () => Promise.reject(new Error('Redis is away')))).rejects.toThrow('Redis is away');
      expect(await count(table, 'queued_at IS NULL AND next_attempt_at IS NOT NULL')).toBe(3);
    }));
  it('fails a claim within seconds while Redis is unreachable (BullMQ alone would wait for it): the rows stay due', async () => {
    const table = await newTable();
    await insert(table, 'a', 3);
    const producer = new QueueProducer<JobData>('items', connection(`redis://127.0.0.1:${await freePort()}`));
    const relay = new OutboxRelay(db, producer, spec(table));
    try {
      const started = Date.now();
      await expect(relay.claim()).rejects.toThrow('Redis is not connected');
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await count(table, 'queued_at IS NULL AND next_attempt_at IS NOT NULL')).toBe(3);
    } finally {
      await producer.close();
    }
  });
});

describe('lost jobs', () => {
  it('queues again, as soon as Redis is back, the rows whose jobs a Redis restarted empty lost; each row is done once', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const table = await newTable();
    await insert(table, 'a', 10);
    const conn = connection(`redis://127.0.0.1:${port}`);
    const producer = new QueueProducer<JobData>('items', conn);
    // The periodic check is an hour away: only the reconnect can find the lost jobs.
    const relay = new OutboxRelay(db, producer, spec(table, { sweepMs: 3_600_000 }));
    const worker = new ItemWorker('items', db, table);
    try {
      await producer.getJobCounts('waiting'); // connected before the relay starts, as in an app whose start waits on its migrations
      relay.start();
      await relay.drain();
      expect(await count(table, 'queued_at IS NOT NULL')).toBe(10); // the jobs are in Redis, and only there
      await stopRedis(redis);
      redis = await startRedis(port); // empty: no persistence
      worker.start(conn, 4);
      await allDoneOnce(table, worker, 10);
    } finally {
      await closeAll(worker, relay, producer, redis);
    }
  });

  it('looks for lost jobs at start once Redis answers, when Redis was not there yet at start', async () => {
    const port = await freePort();
    const table = await newTable();
    await insert(table, 'a', 4);
    // Marked queued by an earlier process whose Redis has since been replaced by an empty one.
    await db.rows(`UPDATE ${table} SET queued_at = now() - interval '1 minute'`);
    const conn = connection(`redis://127.0.0.1:${port}`);
    const producer = new QueueProducer<JobData>('items', conn);
    const relay = new OutboxRelay(db, producer, spec(table, { sweepMs: 3_600_000 }));
    const worker = new ItemWorker('items', db, table);
    let redis: ChildProcess | undefined;
    try {
      relay.start(); // nothing answers on the port yet
      await new Promise((r) => setTimeout(r, 300));
      redis = await startRedis(port);
      worker.start(conn, 4);
      await allDoneOnce(table, worker, 4);
    } finally {
      await closeAll(worker, relay, producer, redis);
    }
  });

  it('leaves alone rows whose jobs are still queued or running', async () => {
    const table = await newTable();
    await insert(table, 'a', 6);
    const conn = connection();
    const producer = new QueueProducer<JobData>('items', conn);
    const relay = new OutboxRelay(db, producer, spec(table));
    const worker = new ItemWorker('items', db, table);
    worker.delayMs = 500;
    try {
      expect(await relay.claim()).toBe(6);
      const running = new Promise<void>((resolve) => (worker.started = resolve));
      worker.start(conn, 1);
      await running; // one job running, one waiting
      expect(await relay.requeueLost()).toBe(0);
      await eventually(async () => ((await count(table, 'done_at IS NOT NULL')) === 6 ? true : undefined));
      expect([...worker.seen.values()]).toEqual(Array(6).fill(1));
    } finally {
      await worker.close();
      await producer.close();
    }
  });
});

describe('QueueWorker shutdown', () => {
  it('stops taking jobs and finishes the one in flight before close resolves', async () => {
    const table = await newTable();
    await insert(table, 'a', 6);
    const conn = connection();
    const producer = new QueueProducer<JobData>('items', conn);
    const relay = new OutboxRelay(db, producer, spec(table));
    const worker = new ItemWorker('items', db, table);
    worker.delayMs = 300;
    try {
      await relay.claim();
      const running = new Promise<void>((resolve) => (worker.started = resolve));
      worker.start(conn, 1);
      await running;
      await worker.close();
      // The job in flight (3 items) was finished and recorded; the other was not taken.
      expect(await count(table, 'done_at IS NOT NULL')).toBe(3);
      expect(worker.seen.size).toBe(3);
    } finally {
      await producer.close();
    }
  });
});
