import { Client } from 'pg';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { createIndexConcurrently, dropIndex } from '../src/concurrent-index';
import { dataSourceOptions } from '../src/data-source-options';
import { migrateDatabase, MigrationLockTimeoutError } from '../src/migrate';
import { scratchDatabase } from './support/scratch-database';

/** Opened by the test: the second migration (a concurrent index build) starts only then. */
let openGate: () => void = () => undefined;
let gate = Promise.resolve();

class Items1700000000000 implements MigrationInterface {
  name = 'Items1700000000000';
  up = (q: QueryRunner) => q.query(`CREATE TABLE "${q.connection.driver.schema}".items (n int NOT NULL)`);
  down = (q: QueryRunner) => q.query(`DROP TABLE "${q.connection.driver.schema}".items`);
}

class ItemsIndex1700000000001 implements MigrationInterface {
  name = 'ItemsIndex1700000000001';
  transaction = false;
  up = async (q: QueryRunner) => {
    await gate;
    await createIndexConcurrently(q, 'items_n_idx', 'items', '(n)');
  };
  down = (q: QueryRunner) => dropIndex(q, 'items_n_idx');
}

const MIGRATIONS = [Items1700000000000, ItemsIndex1700000000001];

describe('migrateDatabase under the schema lock (real PostgreSQL)', () => {
  let url: string;
  const opened: Array<DataSource | Client> = [];
  const process = async (schema: string) => {
    const dataSource = await new DataSource(dataSourceOptions(url, 2, { schema, entities: [], migrations: MIGRATIONS })).initialize();
    opened.push(dataSource);
    return dataSource;
  };
  const client = async (applicationName: string) => {
    const c = new Client({ connectionString: url, application_name: applicationName });
    await c.connect();
    opened.push(c);
    return c;
  };
  const holdLock = async (schema: string) => {
    const holder = await client('lock-holder');
    await holder.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${schema}`]);
    const { rows } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return { holder, pid: rows[0].pid };
  };

  beforeAll(async () => {
    url = await scratchDatabase('migrate_lock');
  });
  afterAll(async () => {
    for (const o of opened) await ('destroy' in o ? o.destroy() : o.end());
  });

  it('lets the holder build an index concurrently while another process waits for the lock, then both finish', async () => {
    gate = new Promise((resolve) => (openGate = resolve));
    const [first, second] = [await process('waiting'), await process('waiting')];
    const watcher = await client('watcher');
    const firstDone = migrateDatabase(first, 'waiting');
    // The first holds the lock and stops before its concurrent build; the second then waits for the lock.
    await until(
      async () => (await watcher.query(`SELECT 1 FROM waiting.migrations WHERE name = 'Items1700000000000'`).catch(() => ({ rows: [] }))).rows.length === 1,
    );
    const secondDone = migrateDatabase(second, 'waiting');
    // The first's lock session has moved on (CREATE SCHEMA): a session whose last statement asks for the lock is the second's.
    await until(async () => {
      const { rows } = await watcher.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%advisory_lock(hashtext%' AND pid <> pg_backend_pid()`,
      );
      return rows[0].n >= 1;
    });
    openGate();
    await Promise.all([firstDone, secondDone]);
    const { rows } = await watcher.query(
      `SELECT x.indisvalid AS valid FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE c.relname = 'items_n_idx'`,
    );
    expect(rows).toEqual([{ valid: true }]);
    expect((await watcher.query('SELECT name FROM waiting.migrations ORDER BY id')).rows).toEqual([
      { name: 'Items1700000000000' },
      { name: 'ItemsIndex1700000000001' },
    ]);
  }, 30_000);

  it('gives up after the lock timeout, naming the lock and its holder', async () => {
    const { pid } = await holdLock('held');
    const started = Date.now();
    const failure = await migrateDatabase(await process('held'), 'held', { lockTimeoutSeconds: 1 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(MigrationLockTimeoutError);
    expect((failure as Error).message).toMatch(
      new RegExp(
        `^Gave up after 1 s \\(MIGRATION_LOCK_TIMEOUT_SECONDS\\) waiting for the migration lock of schema "held" .*held by PostgreSQL backend pid ${pid} \\(application_name "lock-holder", `,
      ),
    );
    expect(Date.now() - started).toBeLessThan(5000);
  }, 30_000);

  it('takes no lock when nothing is pending', async () => {
    gate = Promise.resolve();
    await migrateDatabase(await process('current'), 'current');
    const { holder } = await holdLock('current');
    await migrateDatabase(await process('current'), 'current', { lockTimeoutSeconds: 1 });
    await holder.query('SELECT pg_advisory_unlock_all()');
  }, 30_000);
});

/** Polls `check` every 50 ms until it holds; Jest's timeout bounds the wait. */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}
