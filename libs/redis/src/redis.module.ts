import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { ThrottledWarning } from '@app/observability';
import { RedisConfig } from './redis.config';

/** Injection token of the shared ioredis client. */
export const REDIS = Symbol('REDIS');

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * One Redis connection per process. Commands fail fast while Redis is unreachable
 * (no offline queue) so requests answer 503 instead of hanging.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [RedisConfig],
      useFactory: (config: RedisConfig) => {
        const redis = new Redis(config.REDIS_URL, {
          keyPrefix: config.REDIS_PREFIX,
          enableOfflineQueue: false,
          // Commands issued in the same tick share one write: the rate limiter's per-request calls batch up under load.
          enableAutoPipelining: true,
          maxRetriesPerRequest: 1,
          connectTimeout: 2000,
          commandTimeout: 2000,
          retryStrategy: (times) => Math.min(times * 200, 2000),
        });
        // Without a listener ioredis prints every failed reconnect's stack to stderr, outside the log.
        const failure = new ThrottledWarning('Redis');
        redis.on('error', (error: Error) => failure.warn(`redis: ${error.message}`));
        return redis;
      },
    },
    RedisLifecycle,
  ],
  exports: [REDIS],
})
export class RedisModule {}
