import { randomUUID } from 'node:crypto';
import { connectRedis, type RedisClient, type RedisTarget } from '@app/redis';
import { RateLimitConfig } from './rate-limit.config';
import { RateLimiter } from './rate-limiter.service';

// The run's Redis, or its Redis Cluster with TEST_REDIS_CLUSTER=1 (the test kit's testRedis(), which this lib's tests cannot import).
const testRedis = (): RedisTarget => ({
  url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  clusterNodes: process.env.TEST_REDIS_CLUSTER_NODES ?? '',
});

/** Against the real Redis (or Redis Cluster), each test under its own key prefix. */
describe('RateLimiter', () => {
  const clients: RedisClient[] = [];
  const limiters: RateLimiter[] = [];
  afterAll(async () => {
    for (const limiter of limiters) await limiter.onApplicationShutdown();
    for (const redis of clients) await redis.quit();
  });

  function limiterPair(settings: Partial<RateLimitConfig> = {}): [RateLimiter, RateLimiter, RedisClient] {
    const prefix = `test:rl:${randomUUID().slice(0, 8)}:`;
    const make = () => {
      const redis = connectRedis(testRedis(), { keyPrefix: prefix, enableAutoPipelining: true, maxRetriesPerRequest: 1 });
      clients.push(redis);
      const limiter = new RateLimiter(redis, Object.assign(new RateLimitConfig(), settings));
      limiters.push(limiter);
      return limiter;
    };
    const reader = connectRedis(testRedis(), { keyPrefix: prefix, maxRetriesPerRequest: 1 });
    clients.push(reader);
    return [make(), make(), reader];
  }

  const at = 1_800_000_000_000 + 5_000; // early in a fixed window, so no test straddles two
  const key = (subject: string) => `rl:api:${subject}:${Math.floor(at / 60_000)}`;

  it('counts windows of another length apart: one-second windows reset each second and answer Retry-After in seconds', async () => {
    const [a, b] = limiterPair();
    const second = 1_800_000_000_000; // the start of a second
    const first = [];
    for (let i = 0; i < 4; i++) first.push(await (i % 2 ? b : a).hit('tp', 'phone', 3, second + 100, 1000));
    expect(first.map((r) => r.exceeded)).toEqual([false, false, false, true]);
    expect(first[3]).toMatchObject({ remaining: 0, retryAfter: 1, reset: second / 1000 + 1 });
    // The next second is a new window; the per-minute count of the same subject is separate.
    expect(await a.hit('tp', 'phone', 3, second + 1100, 1000)).toMatchObject({ exceeded: false, remaining: 2 });
    expect(await a.hit('tp', 'phone', 3, second + 1200)).toMatchObject({ exceeded: false, remaining: 2 });
  });

  it('counts a small limit exactly in Redis on every hit, across instances', async () => {
    const [a, b, redis] = limiterPair();
    const results = [];
    for (let i = 0; i < 7; i++) results.push(await (i % 2 ? b : a).hit('api', 's', 5, at));
    expect(results.map((r) => r.exceeded)).toEqual([false, false, false, false, false, true, true]);
    expect(results.map((r) => r.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    expect(Number(await redis.get(key('s')))).toBe(7);
  });

  it('keeps counting down while a sync is on its way to Redis', async () => {
    const [a] = limiterPair();
    await a.hit('api', 'race', 1000, at);
    await a.hit('api', 'race', 1000, at);
    const syncing = a.sync();
    for (let tick = 0; tick < 3; tick++) await Promise.resolve(); // the sync has sent the pending hit; Redis has not answered yet
    const during = await a.hit('api', 'race', 1000, at);
    await syncing;
    expect(during.remaining).toBe(1000 - 3);
    expect((await a.hit('api', 'race', 1000, at)).remaining).toBe(1000 - 4);
  });

  it('counts a large limit locally after the first hit and adds the hits to Redis on sync', async () => {
    const [a, , redis] = limiterPair();
    for (let i = 0; i < 10; i++) await a.hit('api', 'big', 1000, at);
    expect(Number(await redis.get(key('big')))).toBe(1); // only the first hit went to Redis
    const result = await a.hit('api', 'big', 1000, at);
    expect(result.remaining).toBe(1000 - 11);
    await a.sync();
    expect(Number(await redis.get(key('big')))).toBe(11);
    expect(await redis.pttl(key('big'))).toBeGreaterThan(0);
  });

  it("goes to Redis once its local share is used up, and sees the other instance's hits then", async () => {
    const [a, b] = limiterPair({ RATE_LIMIT_LOCAL_PERCENT: 1 }); // a share of 10 at 1000/min
    await a.hit('api', 'shared', 1000, at);
    for (let i = 0; i < 50; i++) await b.hit('api', 'shared', 1000, at);
    await b.sync();
    let last = await a.hit('api', 'shared', 1000, at);
    for (let i = 0; i < 10; i++) last = await a.hit('api', 'shared', 1000, at);
    expect(last.remaining).toBe(1000 - 62); // a's 12 hits and b's 50
  });

  it('stays exact near the limit, so a single instance never overshoots', async () => {
    const [a] = limiterPair({ RATE_LIMIT_LOCAL_PERCENT: 10 });
    const results = [];
    for (let i = 0; i < 120; i++) results.push(await a.hit('api', 'edge', 100, at));
    expect(results.filter((r) => !r.exceeded)).toHaveLength(100);
    expect(results[99].remaining).toBe(0);
  });
});
