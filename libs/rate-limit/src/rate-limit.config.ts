// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';

/** Rate-limit settings, shared by the auth guard and the limiter. */
export class RateLimitConfig {
  /** Requests per minute per credential. */
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_MINUTE: number = 1000;

  /** Requests per minute per credential on authentication endpoints, and failed authentications per client address. */
  @IsInt()
  @Min(1)
  RATE_LIMIT_AUTH_PER_MINUTE: number = 60;

  /**
   * Share of a limit (percent) one process may count on its own between syncs with Redis.
   * Limits too small to give a share of at least one hit are counted exactly in Redis on
   * every hit (with the default, every limit under 50 per minute); 0 makes every limit exact.
   */
  @IsInt()
  @Min(0)
  @Max(50)
  RATE_LIMIT_LOCAL_PERCENT: number = 2;

  /** How often a process adds its locally counted hits to the shared counts in Redis, in milliseconds. */
  @IsInt()
  @Min(10)
  @Max(10_000)
  RATE_LIMIT_SYNC_MS: number = 100;
}
