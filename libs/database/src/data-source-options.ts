import type { EntitySchema, MixedList } from 'typeorm';
import type { DatabaseConfig } from './database.config';

export interface DatabaseOptions {
  /** The PostgreSQL schema that holds all of this app's tables. */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function | string>;
}

/** The settings that bound how long a query of the app waits on PostgreSQL. */
export type DatabaseTimeouts = Pick<
  DatabaseConfig,
  'DATABASE_POOLER' | 'DB_CONNECT_TIMEOUT_SECONDS' | 'DB_STATEMENT_TIMEOUT_SECONDS' | 'DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS'
>;

/** How much longer than statement_timeout the client waits for an answer: past it, the server has gone silent. */
export const CLIENT_TIMEOUT_GRACE_MS = 2000;

/** The client's wait for one statement's answer (pg's query_timeout). */
export function clientQueryTimeoutMs(timeouts: Pick<DatabaseTimeouts, 'DB_STATEMENT_TIMEOUT_SECONDS'>): number {
  return timeouts.DB_STATEMENT_TIMEOUT_SECONDS * 1000 + CLIENT_TIMEOUT_GRACE_MS;
}

/**
 * The data source's options. With `timeouts` (the app's pool): connecting and waiting for a free connection are
 * bounded (connectionTimeoutMillis), the client gives up on a silent server (query_timeout), and on PostgreSQL or a
 * session pooler the session carries statement_timeout and idle_in_transaction_session_timeout as startup `options`
 * (behind a transaction pooler `Sql.transaction` sets them per transaction instead). Without (migrations, the
 * commands and the TypeORM CLI, on the direct URL): no statement timeout, whatever the role's default, so a long
 * migration (an index built concurrently) is never cut.
 */
export function dataSourceOptions(url: string, poolSize: number, options: DatabaseOptions, timeouts?: DatabaseTimeouts) {
  return {
    type: 'postgres' as const,
    url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    // gen_random_uuid() is built into PostgreSQL 13+: no extension to install.
    uuidExtension: 'pgcrypto' as const,
    installExtensions: false,
    migrationsRun: false,
    poolSize,
    extra: { application_name: options.schema, ...(timeouts ? poolTimeouts(timeouts) : { options: sessionSettings(0, 0) }) },
  };
}

/** node-postgres pool options for `timeouts`. */
export function poolTimeouts(timeouts: DatabaseTimeouts): Record<string, number | string> {
  const bounds = {
    connectionTimeoutMillis: timeouts.DB_CONNECT_TIMEOUT_SECONDS * 1000,
    query_timeout: clientQueryTimeoutMs(timeouts),
  };
  if (timeouts.DATABASE_POOLER === 'transaction') return bounds;
  return { ...bounds, options: sessionSettings(timeouts.DB_STATEMENT_TIMEOUT_SECONDS * 1000, timeouts.DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS * 1000) };
}

/** The startup `options` that set the two server-side timeouts (milliseconds; 0 is none). */
function sessionSettings(statementMs: number, idleInTransactionMs: number): string {
  return `-c statement_timeout=${statementMs} -c idle_in_transaction_session_timeout=${idleInTransactionMs}`;
}
