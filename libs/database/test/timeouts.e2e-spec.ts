import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions, poolTimeouts, type DatabaseTimeouts } from '../src/data-source-options';
import { Sql } from '../src/sql.service';
import { scratchDatabase } from './support/scratch-database';

const TIMEOUTS: DatabaseTimeouts = {
  DATABASE_POOLER: 'session',
  DB_CONNECT_TIMEOUT_SECONDS: 1,
  DB_STATEMENT_TIMEOUT_SECONDS: 1,
  DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: 1,
};

describe('timeouts on the app pool (real PostgreSQL)', () => {
  let url: string;
  const pools: Pool[] = [];
  const sqlWith = (timeouts: DatabaseTimeouts) => {
    const pool = new Pool({ connectionString: url, max: 2, ...poolTimeouts(timeouts) });
    pool.on('error', () => undefined);
    pools.push(pool);
    return new Sql(pool, timeouts);
  };

  beforeAll(async () => {
    url = await scratchDatabase('timeouts');
  });
  afterAll(() => Promise.all(pools.map((p) => p.end())));

  it('cancels a statement past DB_STATEMENT_TIMEOUT_SECONDS (57014)', async () => {
    await expect(sqlWith(TIMEOUTS).rows('SELECT pg_sleep(3)')).rejects.toMatchObject({
      code: '57014',
      message: 'canceling statement due to statement timeout',
    });
  });

  it('ends a session whose transaction sits idle past DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS, and the pool goes on', async () => {
    const sql = sqlWith(TIMEOUTS);
    const watcher = new Client({ connectionString: url });
    await watcher.connect();
    try {
      const failure = await sql
        .transaction(async (tx) => {
          const [{ pid }] = await tx.rows<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          // Idle in the transaction until PostgreSQL has ended the session.
          for (;;) {
            const { rows } = await watcher.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
            if (rows.length === 0) break;
          }
          await tx.rows('SELECT 1');
        })
        .catch((e: unknown) => e);
      expect(String((failure as Error).message)).toMatch(/idle-in-transaction timeout|Connection terminated|not queryable/);
      expect(await sql.rows('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await watcher.end();
    }
  });

  it('lifts the statement timeout and the client wait for a long-running transaction only', async () => {
    const sql = sqlWith(TIMEOUTS);
    // Past the client's own wait too (statement timeout + 2 s).
    await expect(sql.transaction((tx) => tx.rows('SELECT pg_sleep(3.2) AS slept'), { longRunning: true })).resolves.toEqual([{ slept: '' }]);
    await expect(sql.transaction((tx) => tx.rows('SHOW statement_timeout'))).resolves.toEqual([{ statement_timeout: '1s' }]);
  }, 15_000);

  it('gives up on a silent server after the statement timeout and 2 s (a client-side bound)', async () => {
    // A session whose server-side timeout is off stands for a server whose answer never comes.
    const pool = new Pool({ connectionString: url, max: 1, query_timeout: poolTimeouts(TIMEOUTS).query_timeout as number, options: '-c statement_timeout=0' });
    pools.push(pool);
    const started = Date.now();
    await expect(new Sql(pool).transaction((tx) => tx.rows('SELECT pg_sleep(5)'))).rejects.toThrow('Query read timeout');
    expect(Date.now() - started).toBeLessThan(4500);
    expect(await new Sql(pool).rows('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  }, 15_000);

  it('behind a transaction pooler, sets the server-side timeouts per transaction (SET LOCAL), not per session', async () => {
    const sql = sqlWith({ ...TIMEOUTS, DATABASE_POOLER: 'transaction', DB_STATEMENT_TIMEOUT_SECONDS: 7 });
    await expect(
      sql.transaction((tx) => tx.rows("SELECT current_setting('statement_timeout') AS s, current_setting('idle_in_transaction_session_timeout') AS i")),
    ).resolves.toEqual([{ s: '7s', i: '1s' }]);
    await expect(sql.rows("SELECT current_setting('statement_timeout') AS s")).resolves.toEqual([{ s: '0' }]);
  });

  it('runs migrations without a statement timeout, whatever the role or database says', async () => {
    const admin = new Client({ connectionString: url });
    await admin.connect();
    await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET statement_timeout = '1s'`);
    await admin.end();
    const dataSource = await new DataSource(dataSourceOptions(url, 1, { schema: 'public', entities: [], migrations: [] })).initialize();
    try {
      expect(await dataSource.query("SELECT current_setting('statement_timeout') AS s, current_setting('idle_in_transaction_session_timeout') AS i")).toEqual([
        { s: '0', i: '0' },
      ]);
    } finally {
      await dataSource.destroy();
    }
  });
});
