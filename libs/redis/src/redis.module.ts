import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottledWarning } from '@app/observability';
import { connectRedis, redisTarget, type RedisClient } from './redis-client';
import { RedisConfig } from './redis.config';

/** Injection token of the shared client (`RedisClient`: a server's or a cluster's). */
export const REDIS = Symbol('REDIS');

@Injectable()
class RedisLifecycle implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * One Redis client per process (REDIS_URL's server, or REDIS_CLUSTER_NODES' cluster). Commands fail fast while Redis is unreachable
 * (no offline queue) so requests answer 503 instead of hanging.
 */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [RedisConfig],
      useFactory: (config: RedisConfig) => {
        const redis = connectRedis(redisTarget(config), {
          keyPrefix: config.REDIS_PREFIX,
          enableOfflineQueue: false,
          // Commands issued in the same tick share one write: the rate limiter's per-request calls batch up under load.
          enableAutoPipelining: true,
          maxRetriesPerRequest: 1,
          connectTimeout: 2000,
          commandTimeout: 2000,
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
