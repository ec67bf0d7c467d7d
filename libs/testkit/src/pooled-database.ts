import { Client } from 'pg';
import { workerDatabaseUrl } from './worker-database';

/** Parameters PgBouncer itself SETs on a server connection to match each client's startup packet. */
const TRACKED_BY_POOLER = ['application_name', 'client_encoding', 'datestyle', 'timezone', 'standard_conforming_strings'];

/**
 * The worker database's settings for an app: straight to PostgreSQL, or, in a run with
 * TEST_DATABASE_POOLER=pgbouncer, through PgBouncer in transaction mode with the direct URL beside it.
 */
export async function workerDatabaseSettings(): Promise<Record<string, string>> {
  const direct = await workerDatabaseUrl();
  const pooled = pooledUrl(direct);
  return pooled ? { DATABASE_URL: pooled, DATABASE_POOLER: 'transaction', DATABASE_DIRECT_URL: direct } : { DATABASE_URL: direct };
}

/** `url` (a database of the test server) through the run's PgBouncer, or null when the run has none. */
export function pooledUrl(url: string): string | null {
  const pooler = process.env.TEST_DATABASE_POOLER_URL;
  if (!pooler) return null;
  const through = new URL(url);
  const { host } = new URL(pooler);
  through.host = host;
  return through.toString();
}

/** What a session left behind on one server connection, in words; empty when nothing. */
async function sessionState(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ prepared: string[]; channels: string[]; advisory: number; temp: string[]; settings: string[] }>(
    `SELECT ARRAY(SELECT name FROM pg_prepared_statements ORDER BY name) AS prepared,
            ARRAY(SELECT pg_listening_channels()) AS channels,
            (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS advisory,
            ARRAY(SELECT relname::text FROM pg_class WHERE relnamespace = pg_my_temp_schema()) AS temp,
            ARRAY(SELECT name FROM pg_settings WHERE source = 'session' AND lower(name) <> ALL ('{${TRACKED_BY_POOLER.join(',')}}'::text[])) AS settings`,
  );
  const { prepared, channels, advisory, temp, settings } = rows[0];
  return [
    prepared.length > 0 ? `prepared statements ${prepared.join(', ')}` : '',
    channels.length > 0 ? `LISTEN on ${channels.join(', ')}` : '',
    advisory > 0 ? `${advisory} session advisory lock(s)` : '',
    temp.length > 0 ? `temporary tables ${temp.join(', ')}` : '',
    settings.length > 0 ? `session settings ${settings.join(', ')}` : '',
  ].filter(Boolean);
}

/**
 * Fails when any server connection PgBouncer holds for `url`'s database carries session state
 * (named prepared statements, LISTEN, session advisory locks, temporary tables, SET): behind a
 * transaction pooler the next transaction may run on another connection, or another client's on this one.
 * One open transaction per pool slot pins every server connection of the pool, each to one client.
 */
export async function expectNoSessionState(url: string, poolSize = Number(process.env.TEST_DATABASE_POOLER_SIZE ?? 1)): Promise<void> {
  const clients = Array.from({ length: poolSize }, () => new Client({ connectionString: url }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    await Promise.all(clients.map((c) => c.query('BEGIN')));
    const found = (await Promise.all(clients.map(sessionState))).flat();
    if (found.length > 0) throw new Error(`Session state left on pooled server connections: ${[...new Set(found)].join('; ')}.`);
  } finally {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  }
}
