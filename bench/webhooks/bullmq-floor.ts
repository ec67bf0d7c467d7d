/**
 * The floor of bench/webhooks.ts, in its own process: a bare BullMQ Queue + Worker whose
 * processor POSTs each of a job's deliveries (concurrently) to the receiver with undici `request`
 * over a keep-alive Agent, and nothing else (no signing, no PostgreSQL, no per-webhook limit).
 * Jobs carry the docstore's job data shape (DeliverJobData, up to DELIVERIES_PER_JOB deliveries
 * to one webhook) and options (bench/webhooks.ts writes them).
 *
 * Environment: REDIS_URL, FLOOR_PREFIX (BullMQ key prefix, never the docstore's),
 * FLOOR_TARGET (receiver URL), FLOOR_CONCURRENCY (default 64).
 * IPC: {cmd:'run', file, queue} enqueues every line of `file` (JSON job data) into `queue`,
 * then starts the worker and answers when all jobs completed:
 *   {t0 (worker start, wall-clock ms), t1 (last job done), enqueueMs, completed, failed, cpuMs, firstError}
 *
 *   node -r ./bench/register.js bench/webhooks/bullmq-floor.ts
 */
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { Agent, request } from 'undici';
import type { DeliverJobData } from '@app/webhooks';
import { serveRpc } from '../lib/harness';

type JobData = DeliverJobData;

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const PREFIX = process.env.FLOOR_PREFIX || '';
const TARGET = process.env.FLOOR_TARGET || '';
const CONCURRENCY = Number(process.env.FLOOR_CONCURRENCY) || 64;
if (!PREFIX || !TARGET) throw new Error('FLOOR_PREFIX and FLOOR_TARGET are required');

const wall = () => performance.timeOrigin + performance.now();
const agent = new Agent({ keepAliveTimeout: 30_000 });

async function run(file: string, queueName: string): Promise<Record<string, unknown>> {
  const jobs: JobData[] = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const queueConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue<JobData>(queueName, { connection: queueConnection, prefix: PREFIX });
  try {
    const e0 = performance.now();
    for (let i = 0; i < jobs.length; i += 1000) {
      await queue.addBulk(
        jobs.slice(i, i + 1000).map((data) => ({
          name: 'deliver',
          data,
          // The engine's job name and id (libs/webhooks/src/webhook-relay.service.ts) and options (libs/queue/src/queue-producer.ts).
          opts: { jobId: `${data.deliveries[0].deliveryId}-${data.deliveries[0].attempt}`, removeOnComplete: true, removeOnFail: { count: 1000 }, attempts: 5, backoff: { type: 'exponential', delay: 1000 } },
        })),
      );
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
    const worker = new Worker<JobData>(
      queueName,
      // Like WebhookDeliveryProcessor: the job's deliveries are sent concurrently.
      async (job) => {
        await Promise.all(
          job.data.deliveries.map(async (delivery) => {
            const res = await request(TARGET, {
              method: 'POST',
              dispatcher: agent,
              headers: { 'content-type': 'application/json', 'webhook-id': delivery.eventId },
              body: delivery.body,
            });
            await res.body.dump();
            if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
          }),
        );
      },
      { connection: workerConnection, prefix: PREFIX, concurrency: CONCURRENCY, autorun: false },
    );
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
    await queue.close().catch(() => undefined);
    queueConnection.disconnect();
    workerConnection.disconnect();
  }
}

serveRpc(async (msg) => {
  if (msg.cmd === 'run') return run(String(msg.file), String(msg.queue));
  throw new Error(`unknown command ${String(msg.cmd)}`);
});

process.send!({ ready: true });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => void agent.close().finally(() => process.exit(0)));
