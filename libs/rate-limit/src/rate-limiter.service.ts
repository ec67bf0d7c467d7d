import { Inject, Injectable, Logger } from '@nestjs/common';
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
 * Each hit costs exactly one Redis round trip. While Redis is unreachable each process
 * counts on its own (the same limit per replica) rather than refusing requests: writes
 * and their webhook events must go on without Redis.
 */
@Injectable()
export class RateLimiter {
  private readonly logger = new Logger('RateLimiter');
  private readonly redis: RedisWithHit;
  private readonly local = new Map<string, number>();
  private localWindow = -1;
  private lastWarning = 0;

  constructor(@Inject(REDIS) redis: Redis) {
    if (!('rateLimitHit' in redis)) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis = redis as RedisWithHit;
  }

  async hit(bucket: string, subject: string, limit: number, now = Date.now()): Promise<RateLimitResult> {
    const window = Math.floor(now / WINDOW_MS);
    const resetMs = (window + 1) * WINDOW_MS;
    const key = `rl:${bucket}:${subject}:${window}`;
    const count = await this.redis.rateLimitHit(key, resetMs - now + 1000).catch((error: Error) => this.localHit(key, window, error));
    return {
      limit,
      remaining: Math.max(0, limit - count),
      reset: Math.ceil(resetMs / 1000),
      exceeded: count > limit,
      retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
    };
  }

  private localHit(key: string, window: number, error: Error): number {
    if (window !== this.localWindow) {
      this.local.clear();
      this.localWindow = window;
    }
    if (Date.now() - this.lastWarning > 10_000) {
      this.lastWarning = Date.now();
      this.logger.warn(`Redis unreachable (${error.message}): rate limits are counted per process`);
    }
    const count = (this.local.get(key) ?? 0) + 1;
    this.local.set(key, count);
    return count;
  }
}
