/**
 * Compatibility view: every core setting (server, database, Redis, rate limits) on one
 * object, for libs that still inject one config class (libs/database, libs/webhooks'
 * `WebhookServiceConfig extends BaseServiceConfig`). It declares no validators: the
 * values are copied from the validated feature classes (`ServerConfig`, `DatabaseConfig`,
 * `RedisConfig`, `RateLimitConfig`). New code injects the feature class it needs.
 */
export class BaseServiceConfig {
  PORT!: number;
  DATABASE_URL!: string;
  DB_POOL_SIZE!: number;
  DATABASE_POOLER!: 'session' | 'transaction';
  DATABASE_DIRECT_URL?: string;
  PRUNE_INTERVAL_SECONDS!: number;
  PRUNE_BATCH_ROWS!: number;
  REDIS_URL!: string;
  REDIS_PREFIX!: string;
  LOG_LEVEL!: string;
  BODY_LIMIT_BYTES!: number;
  PUBLIC_BASE_URL?: string;
  RATE_LIMIT_PER_MINUTE!: number;
  RATE_LIMIT_AUTH_PER_MINUTE!: number;
  TRUST_PROXY!: string;
}
