// Settings are converted by their declared types, which needs decorator metadata.
import 'reflect-metadata';
import { IsString, IsUrl, Matches } from 'class-validator';

/** Redis settings, read by the Redis lib. */
export class RedisConfig {
  @IsUrl({ protocols: ['redis', 'rediss'], require_tld: false, require_protocol: true })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /** Prefix for every Redis key, so services (and test runs) sharing one Redis never collide. */
  @IsString() @Matches(/^[\w:.-]*$/)
  REDIS_PREFIX: string = '';
}
