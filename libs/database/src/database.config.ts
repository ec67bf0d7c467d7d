// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsIn, IsInt, IsOptional, IsUrl, Max, Min } from 'class-validator';

const POSTGRES_URL = { protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true };

/** PostgreSQL settings: DatabaseModule connects with them; an app lists the class among its settings (libs/server's CoreModule does). */
export class DatabaseConfig {
  /** Where queries go: PostgreSQL itself, or a pooler in front of it. */
  @IsUrl(POSTGRES_URL)
  DATABASE_URL!: string;

  /**
   * What sits at DATABASE_URL. `transaction`: a transaction pooler (PgBouncer `pool_mode=transaction`, RDS Proxy,
   * Supavisor), which may give each transaction another server connection, so no named prepared statement is sent.
   */
  @IsIn(['session', 'transaction'])
  DATABASE_POOLER: 'session' | 'transaction' = 'session';

  /** PostgreSQL without a transaction pooler, for what needs a session: migrations (advisory lock), LISTEN. Default DATABASE_URL. */
  @IsOptional()
  @IsUrl(POSTGRES_URL)
  DATABASE_DIRECT_URL?: string;

  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE: number = 20;

  /** Seconds to open a connection, or to wait for a free one of the pool when all are busy. */
  @IsInt()
  @Min(1)
  @Max(300)
  DB_CONNECT_TIMEOUT_SECONDS: number = 5;

  /**
   * PostgreSQL cancels a statement running longer (statement_timeout); the client gives up on an answer 2 s later
   * (a server gone silent). Long work (sales uploads) lifts it per transaction; migrations run without it.
   */
  @IsInt()
  @Min(1)
  @Max(3600)
  DB_STATEMENT_TIMEOUT_SECONDS: number = 30;

  /** PostgreSQL ends a session whose transaction sits idle longer (idle_in_transaction_session_timeout). */
  @IsInt()
  @Min(1)
  @Max(3600)
  DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS: number = 60;

  /** Seconds a starting process (or a command) waits while another one migrates the schema, before it fails saying who holds the lock. */
  @IsInt()
  @Min(1)
  @Max(86_400)
  MIGRATION_LOCK_TIMEOUT_SECONDS: number = 300;

  /** How often rows past their retention are deleted, in seconds (also once at start); 0 turns pruning off. */
  @IsInt()
  @Min(0)
  @Max(86_400)
  PRUNE_INTERVAL_SECONDS: number = 600;

  /** Rows deleted per pruning transaction: each batch holds its row locks only this long. */
  @IsInt()
  @Min(100)
  @Max(100_000)
  PRUNE_BATCH_ROWS: number = 1000;
}

/** The URL for session work: DATABASE_DIRECT_URL, or DATABASE_URL when it is unset. */
export function directDatabaseUrl(config: Pick<DatabaseConfig, 'DATABASE_URL' | 'DATABASE_DIRECT_URL'>): string {
  return config.DATABASE_DIRECT_URL ?? config.DATABASE_URL;
}
