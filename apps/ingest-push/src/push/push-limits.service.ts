import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { REDIS, type RedisClient } from '@app/redis';

/**
 * Sends are spaced this much wider than the throttle asks, so timer and network jitter (a send
 * leaving a few milliseconds after its slot) never put more than the throttle into any window.
 */
export const THROTTLE_MARGIN = 1.1;

/** The spacing between two sends of a batch throttled to `perMinute`, in milliseconds. */
export function throttleInterval(perMinute: number): number {
  return (60_000 / perMinute) * THROTTLE_MARGIN;
}

/**
 * GCRA with reservations, on one key per batch (one slot of a Redis Cluster): the key holds the
 * theoretical arrival time (TAT) of the next send. A caller asks for `want` slots starting no later
 * than `horizon` ms from now and gets how many it may take, when the first is (ms from now; the
 * others follow every `interval`), and when the next free slot is. Redis's clock, so replicas agree.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local horizon = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local room = math.floor((now + horizon - tat) / interval) + 1
if room < 0 then room = 0 end
local n = math.min(want, room)
local after = tat + n * interval
if n > 0 then redis.call('SET', KEYS[1], string.format('%.3f', after), 'PX', math.ceil(after - now) + 60000) end
return {string.format('%.3f', tat - now), n, string.format('%.3f', after - now)}`;

/**
 * A frequency cap on one device: a sorted set of the pushes that counted (member: the push id, so a
 * retry of the same push counts once), older ones than the window dropped first. 1: within the cap
 * (now counted); 0: capped.
 */
const COUNT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 1`;

type LimitsRedis = RedisClient & {
  pushThrottleReserve(key: string, interval: string, want: number, horizon: number): Promise<[string, number, string]>;
  pushCapCount(key: string, windowMs: number, max: number, member: string): Promise<number>;
};

/** What a batch's throttle granted: `granted` slots, the first `firstMs` from now, then one every `intervalMs`. */
export interface Reservation {
  granted: number;
  firstMs: number;
  intervalMs: number;
  /** When the slot after the granted ones is, ms from now. */
  nextMs: number;
}

/** The batch throttles and the device frequency caps, shared by every replica and worker through Redis. */
@Injectable()
export class PushLimits {
  private readonly redis: LimitsRedis;

  constructor(@Inject(REDIS) redis: RedisClient) {
    if (!('pushThrottleReserve' in redis)) {
      redis.defineCommand('pushThrottleReserve', { numberOfKeys: 1, lua: RESERVE });
      redis.defineCommand('pushCapCount', { numberOfKeys: 1, lua: COUNT });
    }
    this.redis = redis as LimitsRedis;
  }

  /** Up to `want` send slots of the batch starting within `horizonMs`. Throws when Redis is unreachable. */
  async reserve(batchId: string, perMinute: number, want: number, horizonMs: number): Promise<Reservation> {
    const intervalMs = throttleInterval(perMinute);
    const [first, granted, next] = await this.redis.pushThrottleReserve(`push:throttle:{${batchId}}`, intervalMs.toFixed(3), want, horizonMs);
    return { granted: Number(granted), firstMs: Math.max(0, Number(first)), intervalMs, nextMs: Number(next) };
  }

  /** Counts the push against its device's cap; false when the cap is reached. Throws when Redis is unreachable. */
  async withinCap(accountId: string, platform: string, device: string, pushId: string, max: number, windowHours: number): Promise<boolean> {
    return (await this.redis.pushCapCount(capKey(accountId, platform, device), windowHours * 3_600_000, max, pushId)) === 1;
  }

  /** Takes a push that was not delivered (failed, invalid token) out of its device's count. */
  async release(accountId: string, platform: string, device: string, pushId: string): Promise<void> {
    await this.redis.zrem(capKey(accountId, platform, device), pushId);
  }
}

/** One key per device (hashed: tokens are long); the braces keep it in one Redis Cluster slot. */
function capKey(accountId: string, platform: string, device: string): string {
  return `push:cap:{${accountId}:${platform}:${createHash('sha256').update(device).digest('base64url')}}`;
}
