// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsInt, Min } from 'class-validator';

/** Rate-limit settings, shared by the auth guard and the limiter. */
export class RateLimitConfig {
  /** Requests per minute per credential. */
  @IsInt() @Min(1)
  RATE_LIMIT_PER_MINUTE: number = 1000;

  /** Requests per minute per credential on authentication endpoints, and failed authentications per client address. */
  @IsInt() @Min(1)
  RATE_LIMIT_AUTH_PER_MINUTE: number = 60;
}
