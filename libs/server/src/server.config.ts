// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** HTTP server settings every service reads. */
export class ServerConfig {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  /** Absolute base URL used in pagination links; when unset the request's own scheme and host are used. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true })
  PUBLIC_BASE_URL?: string;

  /** Express "trust proxy" setting: hop count or a list of subnets (e.g. "loopback, 10.0.0.0/8"). Empty trusts nobody. */
  @IsString()
  TRUST_PROXY: string = '';
}
