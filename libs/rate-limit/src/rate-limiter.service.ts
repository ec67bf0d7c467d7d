import { Inject, Injectable } from '@nestjs/common';
import { ServiceUnavailableException } from '@app/errors';
import { REDIS } from '@app/redis';
import type Redis from 'ioredis';

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Unix time (seconds) at which the window resets. */
  reset: number;
  exceeded: boolean;
  /** Seconds until the window resets. */
  retryAfter: number;
}

const WINDOW_MS = 60_000;

// INCR and set the expiry on the first hit: one round trip, atomic.
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

type RedisWithHit = Redis & { rateLimitHit(key: string, ttlMs: number): Promise<number> };

/**
 * Fixed one-minute windows counted in Redis, so every replica shares one count.
 * Each hit costs exactly one Redis round trip.
 */
@Injectable()
export class RateLimiter {
  private readonly redis: RedisWithHit;

  constructor(@Inject(REDIS) redis: Redis) {
    if (!('rateLimitHit' in redis)) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis = redis as RedisWithHit;
  }

  async hit(bucket: string, subject: string, limit: number, now = Date.now()): Promise<RateLimitResult> {
    const window = Math.floor(now / WINDOW_MS);
    const resetMs = (window + 1) * WINDOW_MS;
    const count = await this.redis
      .rateLimitHit(`rl:${bucket}:${subject}:${window}`, resetMs - now + 1000)
      .catch(() => {
        // Without the shared count we cannot enforce the limit: refuse rather than guess.
        throw new ServiceUnavailableException();
      });
    return {
      limit,
      remaining: Math.max(0, limit - count),
      reset: Math.ceil(resetMs / 1000),
      exceeded: count > limit,
      retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
    };
  }
}
