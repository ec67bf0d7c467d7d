import { DataSource } from 'typeorm';
import { scratchDatabase } from './support/scratch-database';
import { DatabaseConfig } from '../src/database.config';
import { Pruner, type RetentionRule } from '../src/pruner.service';
import { Sql } from '../src/sql.service';

describe('Pruner (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let sql: Sql;
  const config = Object.assign(new DatabaseConfig(), { DATABASE_URL: 'postgres://unused', PRUNE_BATCH_ROWS: 1000 });
  const rule: RetentionRule = { table: 'events', expired: 'at < cutoff', keepSeconds: () => 3600 };
  const left = async () => sql.rows<{ live: boolean; n: number }>('SELECT live, count(*)::int AS n FROM events GROUP BY live ORDER BY live');

  beforeAll(async () => {
    dataSource = await new DataSource({ type: 'postgres', url: await scratchDatabase('pruner'), poolSize: 6 }).initialize();
    sql = new Sql(dataSource);
    await sql.rows('CREATE TABLE events (id bigserial PRIMARY KEY, at timestamptz NOT NULL, live boolean NOT NULL)');
  });
  afterAll(() => dataSource.destroy());

  beforeEach(async () => {
    await sql.rows('TRUNCATE events');
    // Expired rows (older than an hour) interleaved with live ones, some just inside the retention.
    await sql.rows(`INSERT INTO events (at, live)
      SELECT CASE WHEN i % 5 = 0 THEN now() - interval '59 minutes' ELSE now() - interval '61 minutes' - make_interval(secs => i) END, i % 5 = 0
      FROM generate_series(1, 12500) i`);
  });

  it('deletes only the expired rows, in batches, and nothing on the next round', async () => {
    const pruner = new Pruner(sql, config);
    pruner.register(rule);
    // Each batch is a transaction of its own: ten full ones, then one that finds nothing left.
    const transactions = jest.spyOn(sql, 'transaction');
    const kept = await sql.rows<{ id: string }>('SELECT id FROM events WHERE live ORDER BY id');
    expect(await pruner.pruneAll()).toBe(10_000);
    expect(transactions).toHaveBeenCalledTimes(11);
    transactions.mockRestore();
    expect(await left()).toEqual([{ live: true, n: 2500 }]);
    expect(await sql.rows('SELECT id FROM events ORDER BY id')).toEqual(kept);
    expect(await pruner.pruneAll()).toBe(0);
  });

  it('stops between batches: a prune stopped by shutdown leaves the rest for the next start', async () => {
    const pruner = new Pruner(sql, config);
    pruner.register(rule);
    const transactions = jest.spyOn(sql, 'transaction').mockImplementation(async function (this: Sql, ...args) {
      // Shutdown arrives while the third batch runs.
      if (transactions.mock.calls.length === 3) void pruner.beforeApplicationShutdown();
      return Sql.prototype.transaction.apply(this, args);
    } as Sql['transaction']);
    expect(await pruner.prune(rule)).toBe(3000);
    transactions.mockRestore();
    expect(await left()).toEqual([
      { live: false, n: 7000 },
      { live: true, n: 2500 },
    ]);
  });

  it('lets one replica at a time prune a table: two at once delete each row once, together all of them', async () => {
    const replicas = [new Pruner(sql, config), new Pruner(new Sql(dataSource), config)];
    for (const p of replicas) p.register(rule);
    const [a, b] = await Promise.all(replicas.map((p) => p.prune(rule)));
    expect(a + b).toBeLessThanOrEqual(10_000);
    // The one that found the lock taken stopped; a later round of either finishes the table.
    expect(a + b + (await replicas[0].pruneAll())).toBe(10_000);
    expect(await left()).toEqual([{ live: true, n: 2500 }]);
  });

  it('leaves a table alone while another session holds its prune lock', async () => {
    const holder = dataSource.createQueryRunner();
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(hashtextextended('prune:events', 0))`);
      const pruner = new Pruner(sql, config);
      expect(await pruner.prune(rule)).toBe(0);
      await holder.query('COMMIT');
      expect(await pruner.prune(rule)).toBe(10_000);
    } finally {
      await holder.release();
    }
  });
});
