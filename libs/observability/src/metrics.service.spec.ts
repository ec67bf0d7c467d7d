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
  it('labels every series of a declared counter with the service and renders the Prometheus text format', async () => {
    const metrics = new Metrics('docstore');
    const rows = metrics.counter('rows_total', 'Rows by outcome.', ['outcome']);
    const results = metrics.counter('results_total', 'Results by provider and outcome.', ['provider', 'outcome']);
    rows.inc({ outcome: 'accepted' }, 1000);
    rows.inc({ outcome: 'rejected' }, 0);
    results.inc({ provider: 'fcm', outcome: 'sent' }, 2);
    results.inc({ provider: 'fcm', outcome: 'sent' });
    const text = await metrics.render();
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toContain('# HELP rows_total Rows by outcome.\n# TYPE rows_total counter\n');
    expect(text).toContain('rows_total{outcome="accepted",service="docstore"} 1000\n');
    expect(sample(text, 'rows_total', { outcome: 'rejected' })).toBeUndefined();
    expect(sample(text, 'results_total', { provider: 'fcm', outcome: 'sent', service: 'docstore' })).toBe(3);
    expect(text).toContain('process_cpu_user_seconds_total{service="docstore"}');
    metrics.onModuleDestroy();
  });

  it('shows a declared counter before anything is counted', async () => {
    const metrics = new Metrics('a');
    metrics.counter('idle_total', 'Nothing yet.', ['outcome']);
    expect(await metrics.render()).toContain('# HELP idle_total Nothing yet.\n# TYPE idle_total counter\n');
    metrics.onModuleDestroy();
  });

  it('returns the same counter for the same declaration, and refuses a different one under the same name', async () => {
    const metrics = new Metrics('a');
    metrics.counter('twice_total', 'Declared twice.', ['outcome']).inc({ outcome: 'x' });
    metrics.counter('twice_total', 'Declared twice.', ['outcome']).inc({ outcome: 'x' });
    expect(sample(await metrics.render(), 'twice_total', { outcome: 'x' })).toBe(2);
    expect(() => metrics.counter('twice_total', 'Other help.', ['outcome'])).toThrow('twice_total is already declared');
    expect(() => metrics.counter('twice_total', 'Declared twice.', ['kind'])).toThrow('twice_total is already declared');
    metrics.onModuleDestroy();
  });

  it('keeps apps in one process apart', async () => {
    const a = new Metrics('a');
    const b = new Metrics('b');
    a.counter('apart_total', 'Only in a.', ['outcome']).inc({ outcome: 'failed' });
    b.counter('apart_total', 'Only in b.', ['provider']);
    expect(await b.render()).not.toContain('apart_total{');
    expect(await b.render()).toContain('# HELP apart_total Only in b.');
    expect(sample(await a.render(), 'apart_total', { outcome: 'failed', service: 'a' })).toBe(1);
    a.onModuleDestroy();
    b.onModuleDestroy();
  });

  it('declares histograms and scrape-time gauges as counters: once per name, the same declaration shared', async () => {
    const metrics = new Metrics('a');
    const lag = metrics.histogram('lag_seconds', 'Lag.', [], [1, 10]);
    expect(metrics.histogram('lag_seconds', 'Lag.', [], [1, 10])).toBe(lag);
    lag.observe({}, 0.5);
    lag.observe({}, 5);
    let level = 3;
    metrics.gauge('level', 'Level by kind.', ['kind'], (set) => set({ kind: 'x' }, level));
    metrics.gauge('nothing', 'Sets nothing.', [], () => undefined);
    let text = await metrics.render();
    expect(sample(text, 'lag_seconds_bucket', { le: '1', service: 'a' })).toBe(1);
    expect(sample(text, 'lag_seconds_count', { service: 'a' })).toBe(2);
    expect(sample(text, 'level', { kind: 'x', service: 'a' })).toBe(3);
    expect(text).toContain('# TYPE nothing gauge\n');
    level = 4;
    text = await metrics.render();
    expect(sample(text, 'level', { kind: 'x' })).toBe(4);
    expect(() => metrics.counter('lag_seconds', 'Lag.', [])).toThrow('lag_seconds is already declared');
    metrics.onModuleDestroy();
  });

  it('leaves a gauge out of the scrape when its collect fails or takes over a second', async () => {
    const metrics = new Metrics('a');
    metrics.gauge('broken', 'Throws.', [], () => Promise.reject(new Error('down')));
    metrics.gauge('slow', 'Never answers.', [], () => new Promise<void>(() => undefined));
    const started = Date.now();
    const text = await metrics.render();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(text).toContain('# TYPE broken gauge\n');
    expect(text).not.toMatch(/^(broken|slow)\{/m);
    metrics.onModuleDestroy();
  });

  it("reports each queue's oldest ready job's age, 0 when none waits, and nothing for a queue that cannot tell", async () => {
    const metrics = new Metrics('a');
    const counts = () => Promise.resolve({});
    // Fixed before render() reads its clock: taken in the callback, it could be a millisecond after (89.999 s).
    const since = Date.now() - 90_000;
    metrics.watchQueue({ name: 'old', getJobCounts: counts, oldestWaitingSince: () => Promise.resolve(since) });
    metrics.watchQueue({ name: 'empty', getJobCounts: counts, oldestWaitingSince: () => Promise.resolve(undefined) });
    metrics.watchQueue({ name: 'plain', getJobCounts: counts });
    metrics.watchQueue({ name: 'down', getJobCounts: counts, oldestWaitingSince: () => Promise.reject(new Error('down')) });
    const text = await metrics.render();
    expect(sample(text, 'queue_oldest_job_age_seconds', { queue: 'old' })).toBeGreaterThanOrEqual(90);
    expect(sample(text, 'queue_oldest_job_age_seconds', { queue: 'old' })).toBeLessThan(100);
    expect(sample(text, 'queue_oldest_job_age_seconds', { queue: 'empty' })).toBe(0);
    expect(sample(text, 'queue_oldest_job_age_seconds', { queue: 'plain' })).toBeUndefined();
    expect(sample(text, 'queue_oldest_job_age_seconds', { queue: 'down' })).toBeUndefined();
    metrics.onModuleDestroy();
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
        worker = new Worker('metrics-spec', (job) => (job.data.n === 3 ? Promise.reject(new Error('boom')) : Promise.resolve()), {
          connection: { url: REDIS },
          prefix,
        });
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
      const dead = new Queue('metrics-dead', {
        connection: { host: '127.0.0.1', port: (silent.address() as AddressInfo).port, maxRetriesPerRequest: 0, retryStrategy: () => null },
        prefix,
      });
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
