import 'reflect-metadata';
import { type ChildProcess } from 'node:child_process';
import request from 'supertest';
import { eventually, freePort, startOwnRedis, stopOwnRedis } from '@app/testkit';
import { dueIn, itemRows, pushItem } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(90_000);

describe('push while Redis restarts empty', () => {
  let redis: ChildProcess;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    redis = await startOwnRedis(port);
  });
  const push = usePush({
    fcm: true,
    env: () => ({ REDIS_URL: `redis://127.0.0.1:${port}`, PUSH_CONCURRENCY: '1', PUSH_ITEMS_PER_JOB: '5', PUSH_SWEEP_SECONDS: '1' }),
  });
  // Declared after usePush: Jest runs afterAll hooks in order, so the app closes before its Redis stops.
  afterAll(() => stopOwnRedis(redis));

  it('sends every push exactly once: queued ones, one in flight and scheduled ones', async () => {
    push.fcm.delayMs = 100; // one job of 5 at a time, 100 ms each: most jobs wait in Redis
    const now = await push.app.post(
      push.token,
      Array.from({ length: 60 }, (_, i) => pushItem({ nm_push: `now-${i}` })),
    );
    const later = await push.app.post(
      push.token,
      Array.from({ length: 20 }, (_, i) => pushItem({ nm_push: `later-${i}`, ...dueIn(3_000) })),
    );
    expect([now.status, later.status]).toEqual([202, 202]);

    await push.app.until(
      'some sends',
      () => push.fcm.received.length,
      (n) => n >= 5,
    );
    const queued = await push.app.sql.one<{ n: number }>(
      `SELECT count(*)::int AS n FROM ingest_push.push_items WHERE batch_id = $1 AND queued_at IS NOT NULL`,
      [now.body.batch_id],
    );
    expect(queued!.n).toBeGreaterThan(0);
    await stopOwnRedis(redis);
    // The outage lasts until the app has seen it: its readiness reports Redis down.
    await eventually(async () => {
      const health = await request(push.app.http).get('/health');
      return (health.body as { info?: { redis?: { status?: string } } }).info?.redis?.status === 'down' ? true : undefined;
    });
    redis = await startOwnRedis(port);
    push.fcm.delayMs = 0;

    const rows = [
      ...(await push.app.until(
        'the immediate pushes',
        () => itemRows(push.app.sql, now.body.batch_id),
        (r) => r.every((x) => x.status === 'sent'),
      )),
      ...(await push.app.until(
        'the scheduled pushes',
        () => itemRows(push.app.sql, later.body.batch_id),
        (r) => r.every((x) => x.status === 'sent'),
      )),
    ];
    expect(rows).toHaveLength(80);
    // Only this test's devices: pushes other tests left in the worker's database may reach this fake too.
    const devices = push.fcm.received.map((r) => r.device).filter((d) => /^(now|later)-/.test(d));
    expect(devices).toHaveLength(80);
    expect(new Set(devices).size).toBe(80);
    for (const row of rows.slice(60)) expect(row.sent_at!.getTime()).toBeGreaterThanOrEqual(row.due_at.getTime());
  });
});
