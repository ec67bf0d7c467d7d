// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Settings every service reads. Each app extends this class with its own settings;
 * the class doubles as the typed config service injected wherever settings are needed.
 */
export class BaseServiceConfig {
  @IsInt() @Min(0) @Max(65535)
  PORT: number = 3000;

  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false, require_protocol: true })
  DATABASE_URL!: string;

  @IsInt() @Min(1) @Max(200)
  DB_POOL_SIZE: number = 20;

  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /** Prefix for every Redis key, so services (and test runs) sharing one Redis never collide. */
  @IsString() @Matches(/^[\w:.-]*$/)
  REDIS_PREFIX: string = '';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  /** Largest accepted request body, in bytes. */
  @IsInt() @Min(1024)
  BODY_LIMIT_BYTES: number = 5 * 1024 * 1024;

  /** Absolute base URL used in pagination links; when unset the request's own scheme and host are used. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true })
  PUBLIC_BASE_URL?: string;

  /** Requests per minute per credential. */
  @IsInt() @Min(1)
  RATE_LIMIT_PER_MINUTE: number = 1000;

  /** Requests per minute per credential on authentication endpoints, and failed authentications per client address. */
  @IsInt() @Min(1)
  RATE_LIMIT_AUTH_PER_MINUTE: number = 60;

  /** Express "trust proxy" setting: hop count or a list of subnets (e.g. "loopback, 10.0.0.0/8"). Empty trusts nobody. */
  @IsString()
  TRUST_PROXY: string = '';
}
