import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { Agent, request } from 'undici';
import type { DeliverJobData } from '@app/webhooks';
import { ENGINE_JOB_OPTIONS, serveRpc, wallMs } from '../lib/harness';

/**
 * The bare BullMQ floor of the delivery benches, in its own process: jobs are enqueued with
 * addBulk (not timed), then a Worker (concurrency FLOOR_CONCURRENCY) POSTs each job's bodies to
 * FLOOR_TARGET with undici over a keep-alive Agent of at most FLOOR_CONNECTIONS connections,
 * and does nothing else (no PostgreSQL, no signing, no per-receiver window). Jobs:
 *   webhook  the engine's job name, id, options and data (DeliverJobData: `perJob` deliveries to
 *            one webhook, sent concurrently), bodies made from a delivered body (`template`);
 *   push     the app's job shape: `perJob` FCM v1 messages a job (PUSH_ITEMS_PER_JOB), sent concurrently (devices `f-<n>`).
 * IPC: {cmd:'run', kind, count, queue, perJob, template?} → {t0 (worker start), t1 (last job done), completed, failed, firstError}.
 */
const env = process.env;
const agent = new Agent({ keepAliveTimeout: 30_000, connections: Number(env.FLOOR_CONNECTIONS) || null });

async function post(body: string, headers: Record<string, string>): Promise<void> {
  const res = await request(env.FLOOR_TARGET!, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', ...headers }, body });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
}

type FloorJob = { name: string; data: DeliverJobData | { bodies: string[] }; opts: { jobId: string } };

function webhookJobs(count: number, template: string, perJob: number): FloorJob[] {
  const parsed = JSON.parse(template);
  const webhookId = randomUUID();
  const jobs: FloorJob[] = [];
  for (let i = 0; i < count; i += perJob) {
    const deliveries = Array.from({ length: Math.min(perJob, count - i) }, (_, j) => {
      const eventId = randomUUID();
      const data = { ...parsed.data, id: randomUUID(), key: `floor-${i + j}` };
      const body = JSON.stringify({ id: eventId, type: parsed.type, created_at: new Date().toISOString(), client_id: parsed.client_id, data });
      return { id: randomUUID(), attempt: 1, scheduleAttempt: 1, eventId, body };
    });
    jobs.push({ name: 'deliver', data: { key: webhookId, items: deliveries }, opts: { jobId: `${deliveries[0].id}-1` } });
  }
  return jobs;
}

function pushJobs(count: number, perJob: number): FloorJob[] {
  const jobs: FloorJob[] = [];
  for (let i = 0; i < count; i += perJob) {
    const bodies = Array.from({ length: Math.min(perJob, count - i) }, (_, j) => {
      const message = {
        token: `f-${i + j}`,
        notification: { title: 'Oi Ana', body: 'Seu cupom: X10' },
        data: { url_scheme: 'app://promo' },
        android: { priority: 'high' },
      };
      return JSON.stringify({ message });
    });
    jobs.push({ name: 'send', data: { bodies }, opts: { jobId: `f-${i}` } });
  }
  return jobs;
}

async function run(msg: Record<string, unknown>): Promise<Record<string, unknown>> {
  const count = Number(msg.count);
  const webhook = msg.kind === 'webhook';
  const jobs = webhook ? webhookJobs(count, String(msg.template), Number(msg.perJob)) : pushJobs(count, Number(msg.perJob));
  const [queueRedis, workerRedis] = [0, 1].map(() => new Redis(env.REDIS_URL!, { maxRetriesPerRequest: null }));
  const queue = new Queue(String(msg.queue), { connection: queueRedis, prefix: env.FLOOR_PREFIX });
  for (let i = 0; i < jobs.length; i += 1000) await queue.addBulk(jobs.slice(i, i + 1000).map((j) => ({ ...j, opts: { ...ENGINE_JOB_OPTIONS, ...j.opts } })));
  let [completed, failed, t1] = [0, 0, 0];
  let firstError: string | null = null;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const count1 = () => completed + failed === jobs.length && ((t1 = wallMs()), finish());
  const worker = new Worker(
    String(msg.queue),
    async (job) => {
      if (!webhook) await Promise.all((job.data as { bodies: string[] }).bodies.map((body) => post(body, { authorization: 'Bearer ya29.bench' })));
      else await Promise.all((job.data as DeliverJobData).items.map((d) => post(d.body, { 'webhook-id': d.eventId })));
    },
    { connection: workerRedis, prefix: env.FLOOR_PREFIX, concurrency: Number(env.FLOOR_CONCURRENCY), autorun: false },
  );
  worker.on('completed', () => (completed++, count1()));
  worker.on('failed', (_job, error) => ((firstError ??= error.message), failed++, count1()));
  const t0 = wallMs();
  void worker.run();
  await done;
  await worker.close();
  await queue.close();
  queueRedis.disconnect();
  workerRedis.disconnect();
  return { t0, t1, completed, failed, firstError };
}

serveRpc(run);
process.on('SIGTERM', () => void agent.close().finally(() => process.exit(0)));
