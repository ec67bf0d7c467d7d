import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { REDIS, type RedisClient } from '@app/redis';
import { RateLimitConfig } from './rate-limit.config';

export interface RateLimitResult {
  limit: number;
  remaining: number;
  /** Unix time (seconds) at which the window resets. */
  reset: number;
  exceeded: boolean;
  /** Seconds until the window resets. */
  retryAfter: number;
}

/** The default window: rate limits per minute. */
const MINUTE_MS = 60_000;

// INCRBY and set the expiry when the key is new: one round trip, atomic. One key per call, so a Redis Cluster runs it in one slot.
const ADD_SCRIPT = `
local n = redis.call('INCRBY', KEYS[1], ARGV[2])
if n == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

type RedisWithAdd = RedisClient & { rateLimitAdd(key: string, ttlMs: number, amount: number): Promise<number> };

/** One key's count as this process knows it. */
interface Counter {
  window: number;
  windowMs: number;
  /** The shared count Redis returned last (null until this process has asked once). */
  shared: number | null;
  /** Hits counted here and not yet added in Redis. */
  pending: number;
  /** Hits on their way to Redis (sent, answer not back yet): still counted here meanwhile. */
  inFlight: number;
}

/**
 * Fixed windows (one minute unless the caller says otherwise) shared by every replica through Redis, without a Redis round
 * trip on most requests. Each process may count up to RATE_LIMIT_LOCAL_PERCENT of a
 * limit on its own and adds those hits to Redis every RATE_LIMIT_SYNC_MS (one pipelined
 * write for all keys). A hit goes to Redis at once (exact) when the process has not
 * seen the key's shared count yet, when its local share is used up, when the known
 * count plus a share reaches the limit, and for limits too small to have a share.
 * Worst case with N replicas: up to (N - 1) × share hits past the limit in a window;
 * X-RateLimit-Remaining may be high by the other replicas' unsynced hits (the same
 * bound) for at most one sync interval. While Redis is unreachable each process counts
 * on its own (the same limit per replica) rather than refusing requests.
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimiter');
  private readonly redis: RedisWithAdd;
  private readonly counters = new Map<string, Counter>();
  private lastWarning = 0;
  private timer?: NodeJS.Timeout;
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    @Inject(REDIS) redis: RedisClient,
    private readonly config: RateLimitConfig,
  ) {
    if (!('rateLimitAdd' in redis)) redis.defineCommand('rateLimitAdd', { numberOfKeys: 1, lua: ADD_SCRIPT });
    this.redis = redis as RedisWithAdd;
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sync(), this.config.RATE_LIMIT_SYNC_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sync();
  }

  /**
   * Counts one hit of `subject` in `bucket`'s current window of `windowMs` (one minute by default).
   * A hit counted here answers at once; one that goes to Redis answers with a promise.
   */
  hit(bucket: string, subject: string, limit: number, now = Date.now(), windowMs = MINUTE_MS): RateLimitResult | Promise<RateLimitResult> {
    const window = Math.floor(now / windowMs);
    const key = windowMs === MINUTE_MS ? `rl:${bucket}:${subject}:${window}` : `rl:${bucket}:${subject}:${windowMs}:${window}`;
    const share = Math.floor((limit * this.config.RATE_LIMIT_LOCAL_PERCENT) / 100);
    let counter = this.counters.get(key);
    if (!counter) {
      counter = { window, windowMs, shared: null, pending: 0, inFlight: 0 };
      this.counters.set(key, counter);
    }
    if (counter.shared !== null && counter.pending < share && counter.shared + counter.inFlight + counter.pending + share < limit) {
      counter.pending++;
      return result(limit, counter.shared + counter.inFlight + counter.pending, window, windowMs, now);
    }
    return this.add(key, counter, counter.pending + 1, now).then((count) => result(limit, count, window, windowMs, now));
  }

  /** Adds locally counted hits to every shared count in one pipelined write; runs on a timer and at shutdown. */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncNow());
    return this.syncing;
  }

  private async syncNow(): Promise<void> {
    const now = Date.now();
    const writes: Promise<number>[] = [];
    for (const [key, counter] of this.counters) {
      if (counter.pending > 0) writes.push(this.add(key, counter, counter.pending, now));
      else if (counter.window < Math.floor(now / counter.windowMs)) this.counters.delete(key);
    }
    await Promise.all(writes);
  }

  /** Adds `amount` hits in Redis (taking them out of `pending` first) and returns the shared count. */
  private async add(key: string, counter: Counter, amount: number, now: number): Promise<number> {
    const fromPending = Math.min(counter.pending, amount);
    counter.pending -= fromPending;
    const ttl = (counter.window + 1) * counter.windowMs - now + 1000;
    counter.inFlight += amount;
    try {
      const shared = await this.redis.rateLimitAdd(key, ttl, amount);
      counter.shared = Math.max(counter.shared ?? 0, shared);
      return shared;
    } catch (error) {
      // Counted here instead (never added to Redis later): per process while Redis is away.
      if (Date.now() - this.lastWarning > 10_000) {
        this.lastWarning = Date.now();
        this.logger.warn(`Redis unreachable (${(error as Error).message}): rate limits are counted per process`);
      }
      counter.shared = (counter.shared ?? 0) + amount;
      return counter.shared;
    } finally {
      counter.inFlight -= amount;
    }
  }
}

function result(limit: number, count: number, window: number, windowMs: number, now: number): RateLimitResult {
  const resetMs = (window + 1) * windowMs;
  return {
    limit,
    remaining: Math.max(0, limit - count),
    reset: Math.ceil(resetMs / 1000),
    exceeded: count > limit,
    retryAfter: Math.max(1, Math.ceil((resetMs - now) / 1000)),
  };
}
