import { randomUUID } from 'node:crypto';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { Queue, Worker } from 'bullmq';
import { Metrics } from './metrics.service';

const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The value of one sample line, e.g. `http_request_duration_seconds_count{...}`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('Metrics', () => {
  it('labels every series with the service and renders the Prometheus text format', async () => {
    const metrics = new Metrics('docstore');
    metrics.webhookDelivery('succeeded', 3);
    metrics.webhookDelivery('retrying');
    metrics.ingestedRows('accepted', 1000);
    metrics.ingestedRows('rejected', 0);
    metrics.pushResult('fcm', 'sent', 2);
    const text = await metrics.render();
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'succeeded', service: 'docstore' })).toBe(3);
    expect(sample(text, 'webhook_deliveries_total', { outcome: 'retrying' })).toBe(1);
    expect(sample(text, 'ingest_rows_total', { outcome: 'accepted' })).toBe(1000);
    expect(sample(text, 'ingest_rows_total', { outcome: 'rejected' })).toBeUndefined();
    expect(sample(text, 'push_results_total', { provider: 'fcm', outcome: 'sent' })).toBe(2);
    expect(text).toContain('process_cpu_user_seconds_total{service="docstore"}');
    metrics.onModuleDestroy();
  });

  it('keeps apps in one process apart', async () => {
    const a = new Metrics('a');
    const b = new Metrics('b');
    a.pushResult('apns', 'failed');
    expect(await b.render()).not.toContain('push_results_total{');
    a.onModuleDestroy();
    b.onModuleDestroy();
  });

  describe('queues and workers (real Redis)', () => {
    const prefix = `test:${process.env.TEST_RUN_ID ?? 'local'}:metrics:${randomUUID().slice(0, 8)}`;
    let queue: Queue;
    let worker: Worker;
    let metrics: Metrics;

    beforeAll(() => {
      metrics = new Metrics('test');
      queue = new Queue('metrics-spec', { connection: { url: REDIS }, prefix });
    });
    afterAll(async () => {
      await worker?.close();
      await queue.obliterate({ force: true });
      await queue.close();
      metrics.onModuleDestroy();
    });

    it('reports the backlog by state at scrape time, and counts finished jobs by outcome', async () => {
      metrics.watchQueue(queue);
      await queue.addBulk([1, 2, 3].map((n) => ({ name: 'job', data: { n } })));
      let text = await metrics.render();
      expect(sample(text, 'queue_jobs', { queue: 'metrics-spec', state: 'waiting' })).toBe(3);
      expect(sample(text, 'queue_jobs', { queue: 'metrics-spec', state: 'active' })).toBe(0);

      let done = 0;
      const finished = new Promise<void>((resolve) => {
        const count = () => ++done === 3 && resolve();
        worker = new Worker('metrics-spec', async (job) => {
          if (job.data.n === 3) throw new Error('boom');
        }, { connection: { url: REDIS }, prefix });
        worker.on('completed', () => (metrics.jobFinished('metrics-spec', 'completed'), count()));
        worker.on('failed', () => (metrics.jobFinished('metrics-spec', 'failed'), count()));
      });
      await finished;
      text = await metrics.render();
      expect(sample(text, 'queue_jobs_processed_total', { queue: 'metrics-spec', outcome: 'completed' })).toBe(2);
      expect(sample(text, 'queue_jobs_processed_total', { queue: 'metrics-spec', outcome: 'failed' })).toBe(1);
      expect(sample(text, 'queue_jobs', { queue: 'metrics-spec', state: 'waiting' })).toBe(0);
      expect(sample(text, 'queue_jobs', { queue: 'metrics-spec', state: 'failed' })).toBe(1);
    });

    it('leaves a queue out of the scrape, instead of blocking it, when its Redis does not answer', async () => {
      // A "Redis" that accepts connections and never answers.
      const sockets = new Set<Socket>();
      const silent = createNetServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const dead = new Queue('metrics-dead', { connection: { host: '127.0.0.1', port: (silent.address() as AddressInfo).port, maxRetriesPerRequest: 0, retryStrategy: () => null }, prefix });
      dead.on('error', () => undefined);
      const m = new Metrics('test');
      m.watchQueue(dead);
      const text = await m.render();
      expect(text).toContain('queue_jobs_processed_total');
      expect(text).not.toContain('queue="metrics-dead"');
      m.onModuleDestroy();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await dead.close().catch(() => undefined);
    });
  });
});
