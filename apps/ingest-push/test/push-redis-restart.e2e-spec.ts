import 'reflect-metadata';
import { type ChildProcess } from 'node:child_process';
import { freePort, startOwnRedis, stopOwnRedis } from '@app/testkit';
import { FakeFcm } from './support/push-fakes';
import { dueIn, itemRows, pushItem, startPush, type PushApp } from './support/push-test';

jest.setTimeout(90_000);

describe('push while Redis restarts empty', () => {
  let redis: ChildProcess;
  let port: number;
  let fcm: FakeFcm;
  let app: PushApp;

  beforeAll(async () => {
    port = await freePort();
    redis = await startOwnRedis(port);
    fcm = await new FakeFcm().start();
    app = await startPush({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      PUSH_PROVIDER_ANDROID: 'fcm',
      FCM_BASE_URL: fcm.baseUrl,
      FCM_SERVICE_ACCOUNT_FILE: fcm.serviceAccountFile,
      PUSH_CONCURRENCY: '1',
      PUSH_ITEMS_PER_JOB: '5',
      PUSH_SWEEP_SECONDS: '1',
    });
  });
  afterAll(async () => {
    await app.close();
    await fcm.stop();
    await stopOwnRedis(redis);
  });

  it('sends every push exactly once: queued ones, one in flight and scheduled ones', async () => {
    const token = await app.token();
    fcm.delayMs = 100; // one job of 5 at a time, 100 ms each: most jobs wait in Redis
    const now = await app.post(token, Array.from({ length: 60 }, (_, i) => pushItem({ nm_push: `now-${i}` })));
    const later = await app.post(token, Array.from({ length: 20 }, (_, i) => pushItem({ nm_push: `later-${i}`, ...dueIn(3_000) })));
    expect([now.status, later.status]).toEqual([202, 202]);

    await app.until('some sends', async () => fcm.received.length, (n) => n >= 5);
    const queued = await app.sql.one<{ n: number }>(`SELECT count(*)::int AS n FROM ingest_push.push_items WHERE batch_id = $1 AND queued_at IS NOT NULL`, [now.body.batch_id]);
    expect(queued!.n).toBeGreaterThan(0);
    await stopOwnRedis(redis);
    await new Promise((resolve) => setTimeout(resolve, 500));
    redis = await startOwnRedis(port);
    fcm.delayMs = 0;

    const rows = [
      ...(await app.until('the immediate pushes', () => itemRows(app.sql, now.body.batch_id), (r) => r.every((x) => x.status === 'sent'))),
      ...(await app.until('the scheduled pushes', () => itemRows(app.sql, later.body.batch_id), (r) => r.every((x) => x.status === 'sent'))),
    ];
    expect(rows).toHaveLength(80);
    // Only this test's devices: pushes other tests left in the worker's database may reach this fake too.
    const devices = fcm.received.map((r) => r.device).filter((d) => /^(now|later)-/.test(d));
    expect(devices).toHaveLength(80);
    expect(new Set(devices).size).toBe(80);
    for (const row of rows.slice(60)) expect(row.sent_at!.getTime()).toBeGreaterThanOrEqual(row.due_at.getTime());
  });
});
