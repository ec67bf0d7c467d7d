/**
 * The floor of bench/push.ts, in its own process: a bare BullMQ Queue + Worker whose
 * processor POSTs one FCM v1 message per job to the fake provider with undici `request`
 * over a keep-alive Agent, and nothing else (no PostgreSQL, no batching, no claim/record).
 *
 * Environment: REDIS_URL, FLOOR_PREFIX (BullMQ key prefix), FLOOR_TARGET (messages:send URL),
 * FLOOR_CONCURRENCY (default 64).
 * IPC: {cmd:'run', count, queue} enqueues `count` jobs (device `f-<n>`), starts the worker and
 * answers when all completed: {t0 (worker start, wall-clock ms), t1 (last job done), enqueueMs, completed, failed, firstError}.
 *
 *   node -r ./bench/register.js bench/push/bullmq-floor.ts
 */
import { performance } from 'node:perf_hooks';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { Agent, request } from 'undici';
import { serveRpc } from '../lib/harness';

interface JobData {
  device: string;
  body: string;
}

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const PREFIX = process.env.FLOOR_PREFIX || '';
const TARGET = process.env.FLOOR_TARGET || '';
const CONCURRENCY = Number(process.env.FLOOR_CONCURRENCY) || 64;
if (!PREFIX || !TARGET) throw new Error('FLOOR_PREFIX and FLOOR_TARGET are required');

const wall = () => performance.timeOrigin + performance.now();
const agent = new Agent({ keepAliveTimeout: 30_000, connections: CONCURRENCY });

async function run(count: number, queueName: string): Promise<Record<string, unknown>> {
  const queueConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const workerConnection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue<JobData>(queueName, { connection: queueConnection, prefix: PREFIX });
  try {
    const e0 = performance.now();
    for (let i = 0; i < count; i += 1000) {
      await queue.addBulk(
        Array.from({ length: Math.min(1000, count - i) }, (_, k) => {
          const device = `f-${i + k}`;
          const body = JSON.stringify({ message: { token: device, notification: { title: 'Oi Ana', body: 'Seu cupom: X10' }, data: { url_scheme: 'app://promo' }, android: { priority: 'high' } } });
          return { name: 'send', data: { device, body }, opts: { jobId: device, removeOnComplete: true, removeOnFail: { count: 1000 }, attempts: 5, backoff: { type: 'exponential', delay: 1000 } } };
        }),
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
      if (completed + failed === count) {
        t1 = wall();
        finish();
      }
    };
    const t0 = wall();
    const worker = new Worker<JobData>(
      queueName,
      async (job) => {
        const res = await request(TARGET, {
          method: 'POST',
          dispatcher: agent,
          headers: { authorization: 'Bearer ya29.bench', 'content-type': 'application/json; charset=UTF-8' },
          body: job.data.body,
        });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
      },
      { connection: workerConnection, prefix: PREFIX, concurrency: CONCURRENCY },
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
    await allDone;
    await worker.close();
    return { t0, t1, enqueueMs, completed, failed, firstError };
  } finally {
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    queueConnection.disconnect();
    workerConnection.disconnect();
  }
}

serveRpc((msg) => {
  if (msg.cmd === 'run') return run(Number(msg.count), String(msg.queue));
  throw new Error(`unknown command ${String(msg.cmd)}`);
});
process.send!({ ready: true });
