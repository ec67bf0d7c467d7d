/**
 * The floor of bench/push.ts, in its own process (bench/lib/bullmq-floor.ts): a bare BullMQ
 * Queue + Worker whose processor POSTs one FCM v1 message per job to the fake provider with
 * undici `request` over a keep-alive Agent, and nothing else (no PostgreSQL, no batching, no
 * claim/record). IPC: {cmd:'run', count, queue} enqueues `count` jobs (device `f-<n>`) and
 * runs the worker until all are done.
 *
 *   node -r ./bench/register.js bench/push/bullmq-floor.ts
 */
import { Agent, request } from 'undici';
import { serveFloor } from '../lib/bullmq-floor';

interface JobData {
  device: string;
  body: string;
}

const agent = new Agent({ keepAliveTimeout: 30_000, connections: Number(process.env.FLOOR_CONCURRENCY) || 64 });

serveFloor<JobData>(
  (msg) =>
    Array.from({ length: Number(msg.count) }, (_, n) => {
      const device = `f-${n}`;
      const body = JSON.stringify({ message: { token: device, notification: { title: 'Oi Ana', body: 'Seu cupom: X10' }, data: { url_scheme: 'app://promo' }, android: { priority: 'high' } } });
      return { name: 'send', data: { device, body }, opts: { jobId: device } };
    }),
  async (job, { target }) => {
    const res = await request(target, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: 'Bearer ya29.bench', 'content-type': 'application/json; charset=UTF-8' },
      body: job.data.body,
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
  },
  () => agent.close(),
);
