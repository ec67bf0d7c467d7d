import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createTestApp, metricSample, type TestApp } from '@app/testkit';
import { PushWorkerModule } from '../src/push-worker.module';
import { itemRows, pushItem, request } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(60_000);

const QUEUES = ['push-android', 'push-ios', 'push-web'];
const BACKLOG = { status: 'up', waiting: expect.any(Number), active: expect.any(Number), delayed: expect.any(Number), failed: expect.any(Number) };

const metrics = async (app: TestApp): Promise<string> => (await request(app.http).get('/metrics').expect(200)).text;
const waiting = async (app: TestApp, queue: string): Promise<number | undefined> => metricSample(await metrics(app), 'queue_jobs', { queue, state: 'waiting' });

/**
 * The push lanes are providers like every other queue, so /metrics and /health see them: in the API
 * (which relays due pushes into the queues even when it sends nothing) and in the worker-only process
 * that operators scale on `queue_jobs{queue="push-android",state="waiting"}`.
 */
describe('push queues in /metrics and /health', () => {
  let worker: TestApp | undefined;
  // Declared before usePush: Jest runs afterAll hooks in order, so the worker stops before the API.
  afterAll(() => worker?.close());

  // The API and the workers of one deployment: one Redis prefix; the API runs no workers.
  const push = usePush({ env: { REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:${randomUUID().slice(0, 8)}:`, PUSH_WORKERS: 'off' } });

  it('shows the backlog of each platform queue, and the jobs the workers finished', async () => {
    const health = await request(push.app.http).get('/health').expect(200);
    for (const queue of QUEUES) expect(health.body.info[`queue:${queue}`]).toEqual(BACKLOG);
    const idle = await metrics(push.app);
    for (const queue of QUEUES) expect(metricSample(idle, 'queue_jobs', { queue, state: 'waiting', service: 'ingest-push' })).toBe(0);

    // Three Android pushes due now: the API's relay queues them, and nothing here sends them.
    const posted = await push.app.post(push.token, [pushItem(), pushItem(), pushItem()]);
    expect(posted.status).toBe(202);
    await push.app.until(
      'the Android backlog',
      () => waiting(push.app, 'push-android'),
      (n) => (n ?? 0) > 0,
    );
    expect(await waiting(push.app, 'push-ios')).toBe(0);
    const backlog = await request(push.app.http).get('/health').expect(200);
    expect(backlog.body.info['queue:push-android'].waiting).toBeGreaterThan(0);

    // A worker-only process of the same deployment sends them, and reports the same queues.
    worker = await createTestApp(PushWorkerModule, { ...push.env, PUSH_WORKERS: 'only' });
    const rows = await push.app.until(
      'the pushes',
      () => itemRows(push.app.sql, posted.body.batch_id),
      (r) => r.every((x) => x.status === 'sent'),
    );
    expect(rows).toHaveLength(3);
    const done = await push.app.until(
      'the finished jobs',
      () => metrics(worker!),
      (text) => (metricSample(text, 'queue_jobs_processed_total', { queue: 'push-android', outcome: 'completed' }) ?? 0) > 0,
    );
    for (const queue of QUEUES) expect(metricSample(done, 'queue_jobs', { queue, state: 'waiting' })).toBe(0);
    const workerHealth = await request(worker.http).get('/health').expect(200);
    for (const queue of QUEUES) expect(workerHealth.body.info[`queue:${queue}`]).toEqual({ ...BACKLOG, waiting: 0 });
  });
});
