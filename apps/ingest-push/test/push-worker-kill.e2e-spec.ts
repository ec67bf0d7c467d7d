import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createTestApp, testRedis, TS_CHILD_PRELOAD, workerDatabaseSettings, type TestApp } from '@app/testkit';
import { PushWorkerModule } from '../src/push-worker.module';
import { itemRows, pushItem } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(150_000);

/**
 * A worker process killed (SIGKILL) while it sends a batch: every push is still sent; one whose
 * send was in flight when the worker died is taken over and sent again (at least once).
 */
describe('a push worker killed mid-batch', () => {
  let child: ChildProcess | undefined;
  let second: TestApp | undefined;

  // Declared before usePush: Jest runs afterAll hooks in order, so the workers stop before the API and the fake.
  afterAll(async () => {
    child?.kill('SIGKILL');
    await second?.close();
  });

  // The API and the workers of one deployment: one Redis prefix; the API runs no workers.
  const push = usePush({
    fcm: true,
    env: {
      REDIS_URL: testRedis().url,
      REDIS_CLUSTER_NODES: testRedis().clusterNodes ?? '',
      REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:${randomUUID().slice(0, 8)}:`,
      PUSH_CONCURRENCY: '2',
      PUSH_ITEMS_PER_JOB: '10',
      PUSH_TIMEOUT_SECONDS: '5',
      PUSH_SWEEP_SECONDS: '1',
      PUSH_RELAY_INTERVAL_MS: '50',
      PUSH_WORKER_LOCK_SECONDS: '2',
      PUSH_WORKERS: 'off',
    },
  });

  it('loses no push and sends none twice beyond those in flight', async () => {
    child = fork(require.resolve('./support/push-worker.child.ts'), [], {
      execArgv: ['-r', TS_CHILD_PRELOAD],
      env: { ...process.env, ...push.env, ...(await workerDatabaseSettings()), LOG_LEVEL: 'silent', PUSH_WORKERS: 'only' },
      stdio: 'ignore',
    });
    await new Promise<void>((resolve, reject) => {
      child!.once('message', () => resolve());
      child!.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
    });

    push.fcm.delayMs = 300;
    const posted = await push.app.post(
      push.token,
      Array.from({ length: 100 }, (_, i) => pushItem({ nm_push: `k-${i}` })),
    );
    expect(posted.status).toBe(202);
    await push.app.until(
      'sends in flight',
      () => push.fcm.received.length,
      (n) => n >= 25,
    );

    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    const inFlight = new Set((await itemRows(push.app.sql, posted.body.batch_id)).filter((r) => r.status === 'sending').map((r) => r.device));
    expect(inFlight.size).toBeGreaterThan(0);

    push.fcm.delayMs = 0;
    second = await createTestApp(PushWorkerModule, { ...push.env, PUSH_WORKERS: 'only' });
    const rows = await push.app.until(
      'every push',
      () => itemRows(push.app.sql, posted.body.batch_id),
      (r) => r.every((x) => x.status === 'sent'),
    );
    expect(rows).toHaveLength(100);

    // Each attempt sends at most once: a push reached the fake more than once only if it had as many
    // attempts (its first was in flight when the worker died, or timed out and was retried).
    const times = new Map<string, number>();
    for (const r of push.fcm.received.filter((x) => x.device.startsWith('k-'))) times.set(r.device, (times.get(r.device) ?? 0) + 1);
    expect(times.size).toBe(100);
    const attempts = new Map(rows.map((r) => [r.device, r.attempts]));
    for (const [device, n] of times) expect(n).toBeLessThanOrEqual(attempts.get(device)!);
    for (const device of inFlight) expect(attempts.get(device)).toBeGreaterThanOrEqual(2);
  });
});
