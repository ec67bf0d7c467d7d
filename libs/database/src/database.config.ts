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
  @IsOptional() @IsUrl(POSTGRES_URL)
  DATABASE_DIRECT_URL?: string;

  @IsInt() @Min(1) @Max(200)
  DB_POOL_SIZE: number = 20;

  /** How often rows past their retention are deleted, in seconds (also once at start); 0 turns pruning off. */
  @IsInt() @Min(0) @Max(86_400)
  PRUNE_INTERVAL_SECONDS: number = 600;

  /** Rows deleted per pruning transaction: each batch holds its row locks only this long. */
  @IsInt() @Min(100) @Max(100_000)
  PRUNE_BATCH_ROWS: number = 1000;
}

/** The URL for session work: DATABASE_DIRECT_URL, or DATABASE_URL when it is unset. */
export function directDatabaseUrl(config: Pick<DatabaseConfig, 'DATABASE_URL' | 'DATABASE_DIRECT_URL'>): string {
  return config.DATABASE_DIRECT_URL ?? config.DATABASE_URL;
}
