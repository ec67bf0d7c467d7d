import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DatabaseConfig, prepared, Sql } from '@app/database';
import { expectNoSessionState, freshDatabase, pooledUrl } from '../src';

// Runs in `npm run test:pooler` (TEST_DATABASE_POOLER=pgbouncer): PgBouncer in transaction mode, a few server
// connections per database. Each case gets a database (so a pool) of its own, since what one case leaves on
// a server connection stays there.
let databases = 0;
async function pooledDatabase(): Promise<{ direct: string; pooled: string }> {
  const direct = await freshDatabase(`t_${process.env.TEST_RUN_ID}_pooler_${process.env.JEST_WORKER_ID ?? '1'}_${++databases}`);
  const pooled = pooledUrl(direct);
  if (!pooled) throw new Error('These tests need PgBouncer: run them with `npm run test:pooler` (TEST_DATABASE_POOLER=pgbouncer).');
  return { direct, pooled };
}

function config(pooler: 'session' | 'transaction'): DatabaseConfig {
  return Object.assign(new DatabaseConfig(), { DATABASE_URL: 'postgres://unused', DATABASE_POOLER: pooler });
}

/** Runs `statements` one by one on a client of PgBouncer, outside any transaction (so each may land on any server connection). */
async function leave(url: string, ...statements: string[]): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

describe('behind PgBouncer in transaction mode', () => {
  const BY_ID = prepared('test.pooler_by_id', 'SELECT id, key FROM items WHERE id = $1');

  async function sqlOn(url: string, pooler: 'session' | 'transaction'): Promise<{ sql: Sql; close: () => Promise<void> }> {
    // More clients than server connections: PgBouncer hands each transaction whichever server connection is free.
    const dataSource = await new DataSource({ type: 'postgres', url, poolSize: 8 }).initialize();
    return { sql: new Sql(dataSource, config(pooler)), close: () => dataSource.destroy() };
  }

  async function hammer(sql: Sql): Promise<unknown[]> {
    await sql.rows('CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY, key text NOT NULL)');
    await sql.rows(`INSERT INTO items SELECT i, 'key-' || i FROM generate_series(1, 50) i ON CONFLICT DO NOTHING`);
    return Promise.all(Array.from({ length: 200 }, (_, i) => sql.one(BY_ID, [(i % 50) + 1])));
  }

  it('DATABASE_POOLER=transaction: hot statements answer on any server connection and leave nothing behind', async () => {
    const { pooled } = await pooledDatabase();
    const { sql, close } = await sqlOn(pooled, 'transaction');
    try {
      const rows = await hammer(sql);
      expect(rows).toHaveLength(200);
      expect(rows[51]).toEqual({ id: 2, key: 'key-2' });
      await expect(sql.transaction((tx) => tx.one(BY_ID, [7]))).resolves.toEqual({ id: 7, key: 'key-7' });
    } finally {
      await close();
    }
    await expectNoSessionState(pooled);
  });

  it('the session check fails on named prepared statements (DATABASE_POOLER=session behind the pooler)', async () => {
    const { pooled } = await pooledDatabase();
    const { sql, close } = await sqlOn(pooled, 'session');
    // Named statements either fail outright (prepared on another server connection) or survive on the server.
    await hammer(sql).catch((error: Error) => expect(error.message).toMatch(/prepared statement .* (does not exist|already exists)/));
    await close();
    await expect(expectNoSessionState(pooled)).rejects.toThrow(/prepared statements test\.pooler_by_id/);
  });

  it.each([
    ['LISTEN', ['LISTEN some_channel'], /LISTEN on some_channel/],
    ['a session advisory lock', ['SELECT pg_advisory_lock(42)'], /1 session advisory lock/],
    ['a temporary table', ['CREATE TEMP TABLE scratch (id int)'], /temporary tables scratch/],
    ['SET', ['SET statement_timeout = 1234'], /session settings statement_timeout/],
  ])('the session check fails on %s', async (_what, statements, found) => {
    const { pooled } = await pooledDatabase();
    await leave(pooled, ...statements);
    await expect(expectNoSessionState(pooled)).rejects.toThrow(found);
  });

  it('the session check passes on what stays within a transaction (SET LOCAL, xact locks, ON COMMIT DROP)', async () => {
    const { pooled } = await pooledDatabase();
    await leave(
      pooled,
      `BEGIN; SET LOCAL statement_timeout = 1234; SELECT pg_advisory_xact_lock(42); CREATE TEMP TABLE scratch (id int) ON COMMIT DROP; COMMIT`,
      `SELECT set_config('idle_in_transaction_session_timeout', '5s', true)`,
    );
    await expectNoSessionState(pooled);
  });
});
