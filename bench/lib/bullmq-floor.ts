/**
 * The bare BullMQ floor both delivery benches measure against, run in a child process:
 * jobs enqueued with `addBulk` (not timed), then a Worker at the given concurrency runs
 * `send` for each and nothing else. Settings come from the environment: REDIS_URL,
 * FLOOR_PREFIX (a BullMQ key prefix of its own), FLOOR_TARGET (the URL `send` posts to),
 * FLOOR_CONCURRENCY (default 64). Answers the parent's {cmd:'run'} with
 * {t0 (worker start, wall-clock ms), t1 (last job done), enqueueMs, completed, failed, firstError, cpuMs}.
 */
import { performance } from 'node:perf_hooks';
import { Queue, Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { ENGINE_JOB_OPTIONS } from './deliver';
import { serveRpc } from './harness';

export interface FloorJob<T> {
  name: string;
  data: T;
  opts: { jobId: string };
}

export interface FloorSettings {
  target: string;
  concurrency: number;
}

/** Serves the floor over IPC: `jobsFor(msg)` gives the jobs of one run, `send` does one job's work; `onExit` runs at SIGTERM. */
export function serveFloor<T>(
  jobsFor: (msg: Record<string, unknown>) => Array<FloorJob<T>>,
  send: (job: Job<T>, settings: FloorSettings) => Promise<void>,
  onExit: () => Promise<void> = async () => undefined,
): void {
  const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const prefix = process.env.FLOOR_PREFIX || '';
  const target = process.env.FLOOR_TARGET || '';
  const concurrency = Number(process.env.FLOOR_CONCURRENCY) || 64;
  if (!prefix || !target) throw new Error('FLOOR_PREFIX and FLOOR_TARGET are required');
  const settings: FloorSettings = { target, concurrency };
  const wall = () => performance.timeOrigin + performance.now();

  async function run(queueName: string, jobs: Array<FloorJob<T>>): Promise<Record<string, unknown>> {
    const queueConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const workerConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(queueName, { connection: queueConnection, prefix });
    try {
      const e0 = performance.now();
      for (let i = 0; i < jobs.length; i += 1000) {
        await queue.addBulk(jobs.slice(i, i + 1000).map((job) => ({ name: job.name, data: job.data, opts: { ...ENGINE_JOB_OPTIONS, ...job.opts } })));
      }
      const enqueueMs = performance.now() - e0;
      let completed = 0;
      let failed = 0;
      let firstError: string | null = null;
      let t1 = 0;
      let finish!: () => void;
      const allDone = new Promise<void>((resolve) => (finish = resolve));
      const settle = () => {
        if (completed + failed === jobs.length) {
          t1 = wall();
          finish();
        }
      };
      const worker = new Worker<T>(queueName, (job) => send(job, settings), { connection: workerConnection, prefix, concurrency, autorun: false });
      worker.on('completed', () => {
        completed++;
        settle();
      });
      worker.on('failed', (_job, error) => {
        failed++;
        firstError ??= error.message;
        settle();
      });
      worker.on('error', (error) => {
        firstError ??= error.message;
      });
      const cpu0 = process.cpuUsage();
      const t0 = wall();
      void worker.run();
      await allDone;
      const cpu = process.cpuUsage(cpu0);
      await worker.close();
      return { t0, t1, enqueueMs, completed, failed, firstError, cpuMs: (cpu.user + cpu.system) / 1000 };
    } finally {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close().catch(() => undefined);
      queueConnection.disconnect();
      workerConnection.disconnect();
    }
  }

  serveRpc((msg) => {
    if (msg.cmd === 'run') return run(String(msg.queue), jobsFor(msg));
    throw new Error(`unknown command ${String(msg.cmd)}`);
  });
  process.send!({ ready: true });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => void onExit().finally(() => process.exit(0)));
}
