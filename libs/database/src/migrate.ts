import type { DataSource } from 'typeorm';
import { dataSourceOptions, type DatabaseOptions } from './data-source-options';

/** How long a process waits for another one's migration by default (MIGRATION_LOCK_TIMEOUT_SECONDS). */
export const DEFAULT_MIGRATION_LOCK_TIMEOUT_SECONDS = 300;

export interface MigrateOptions {
  /** Seconds to wait for the schema's migration lock before giving up; default DEFAULT_MIGRATION_LOCK_TIMEOUT_SECONDS. */
  lockTimeoutSeconds?: number;
}

/** A query on one connection, as TypeORM's query runner and pg's pool both offer it. */
type Query = (text: string, values?: unknown[]) => Promise<unknown>;

/** PostgreSQL's error code for a missing table (or schema). */
const UNDEFINED_TABLE = '42P01';

/** Between two tries for the lock: 100–500 ms, jittered so waiting replicas do not poll in step. */
const POLL_MS = { min: 100, max: 500 };

/** The lock a process runs `schema`'s migrations under (one key per schema, the same in every release). */
function lockKey(schema: string): string {
  return `migrate:${schema}`;
}

/** The waiter gave up: another process held the schema's migration lock longer than the timeout. */
export class MigrationLockTimeoutError extends Error {
  override readonly name = 'MigrationLockTimeoutError';
}

/**
 * Creates the app's schema and runs pending migrations, holding the schema's advisory lock so replicas
 * starting together migrate once. Nothing pending: no lock is taken. The lock is tried, not waited for
 * in PostgreSQL: a process blocked in `pg_advisory_lock` sits in an open transaction, and a migration's
 * CREATE INDEX CONCURRENTLY on the holder's other connection waits for every such transaction to end, a
 * cycle PostgreSQL cannot see. Between tries nothing is open, and the wait is bounded (MigrationLockTimeoutError).
 * Once the lock is held, TypeORM reads the migrations table again: what another process did meanwhile is skipped.
 */
export async function migrateDatabase(dataSource: DataSource, schema: string, options: MigrateOptions = {}): Promise<void> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const query: Query = (text, values) => runner.query(text, values);
  let locked = false;
  try {
    const names = dataSource.migrations.map((m) => m.name || m.constructor.name);
    if (!(await migrationPending(query, schema, names))) return;
    await takeMigrationLock(query, schema, options.lockTimeoutSeconds ?? DEFAULT_MIGRATION_LOCK_TIMEOUT_SECONDS);
    locked = true;
    // Created only when missing: CREATE SCHEMA (even IF NOT EXISTS) needs CREATE on the database, which
    // a deployment's role lacks when the schema was made for it (k8s/database-roles.sql).
    const [{ exists }] = (await runner.query('SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS exists', [schema])) as Array<{
      exists: boolean;
    }>;
    if (!exists) await runner.query(`CREATE SCHEMA "${schema.replace(/"/g, '""')}"`);
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    if (locked) await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(schema)]).catch(() => undefined);
    await runner.release();
  }
}

/**
 * Migrates the app's schema on a connection of its own to `url`, closed afterwards. `url` must reach PostgreSQL
 * without a transaction pooler: the advisory lock above belongs to the session.
 */
export async function migrateDatabaseAt(url: string, options: DatabaseOptions & MigrateOptions): Promise<void> {
  // Two connections: one holds the lock, the migrations run their transactions on another.
  const { DataSource } = await import('typeorm');
  const dataSource = await new DataSource(dataSourceOptions(url, 2, options)).initialize();
  try {
    await migrateDatabase(dataSource, options.schema, options);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * True when one of `names` (migrations as TypeORM names them) is not in the schema's migrations table, or there is
 * no table yet. A migration another process is running commits its row with its work, so a name found is a migration done.
 */
export async function migrationPending(query: Query, schema: string, names: readonly string[]): Promise<boolean> {
  let rows: Array<{ name: string }>;
  try {
    rows = (await query(`SELECT name FROM "${schema.replace(/"/g, '""')}".migrations`)) as Array<{ name: string }>;
  } catch (error) {
    if ((error as { code?: string }).code === UNDEFINED_TABLE) return true;
    throw error;
  }
  const applied = new Set(rows.map((row) => row.name));
  return names.some((name) => !applied.has(name));
}

/**
 * Takes `schema`'s migration lock on the session of `query`, trying every 100–500 ms: each try is a statement of its
 * own, so a waiter holds no transaction or snapshot. After `timeoutSeconds`, fails naming the lock and its holder.
 */
async function takeMigrationLock(query: Query, schema: string, timeoutSeconds: number): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  for (;;) {
    const [{ locked }] = (await query('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [lockKey(schema)])) as Array<{ locked: boolean }>;
    if (locked) return;
    if (Date.now() >= deadline) {
      throw new MigrationLockTimeoutError(
        `Gave up after ${timeoutSeconds} s (MIGRATION_LOCK_TIMEOUT_SECONDS) waiting for the migration lock of schema "${schema}" ` +
          `(advisory lock hashtext('${lockKey(schema)}')), held by ${await lockHolder(query, schema)}.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS.min + Math.random() * (POLL_MS.max - POLL_MS.min)));
  }
}

/** Who holds the lock, as far as pg_locks and pg_stat_activity tell (the fields of other roles' sessions may be hidden). */
async function lockHolder(query: Query, schema: string): Promise<string> {
  // A bigint advisory key shows in pg_locks as its high 32 bits (classid) and low 32 bits (objid), objsubid 1.
  const rows = (await query(
    `SELECT l.pid, a.application_name AS application, host(a.client_addr) AS client, a.state,
            extract(epoch FROM now() - a.backend_start)::int AS connected_seconds
       FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((l.classid::int8 << 32) | l.objid::int8) = hashtext($1)::int8`,
    [lockKey(schema)],
  ).catch(() => [])) as Array<{ pid: number; application: string | null; client: string | null; state: string | null; connected_seconds: number | null }>;
  if (rows.length === 0) return 'a session that has just let go of it';
  const [h] = rows;
  const about = [
    h.application ? `application_name "${h.application}"` : '',
    h.client ? `client ${h.client}` : '',
    h.connected_seconds !== null ? `connected ${h.connected_seconds} s ago` : '',
    h.state ? `now ${h.state}` : '',
  ].filter(Boolean);
  return `PostgreSQL backend pid ${h.pid}${about.length > 0 ? ` (${about.join(', ')})` : ''}`;
}
