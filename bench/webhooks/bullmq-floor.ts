/**
 * The floor of bench/webhooks.ts, in its own process (bench/lib/bullmq-floor.ts): a bare
 * BullMQ Queue + Worker whose processor POSTs each of a job's deliveries (concurrently) to the
 * receiver with undici `request` over a keep-alive Agent, and nothing else (no signing, no
 * PostgreSQL, no per-webhook limit). Jobs carry the docstore's job data shape (DeliverJobData,
 * up to DELIVERIES_PER_JOB deliveries to one webhook), name, id and options.
 * IPC: {cmd:'run', file, queue} enqueues every line of `file` (JSON job data, written by
 * bench/webhooks.ts) into `queue`, then runs the worker until all jobs are done.
 *
 *   node -r ./bench/register.js bench/webhooks/bullmq-floor.ts
 */
import * as fs from 'node:fs';
import type { DeliverJobData } from '@app/webhooks';
import { serveFloor } from '../lib/bullmq-floor';
import { floorAgent, postDelivery } from '../lib/deliver';

serveFloor<DeliverJobData>(
  (msg) =>
    fs
      .readFileSync(String(msg.file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as DeliverJobData)
      // The engine's job name and id (laneJobId in libs/queue/src/lane-job.ts; the floor takes only types from the libs).
      .map((data) => ({ name: 'deliver', data, opts: { jobId: `${data.items[0].id}-${data.items[0].attempt}` } })),
  // Like WebhookDeliveryProcessor: the job's deliveries are sent concurrently.
  async (job, { target }) => {
    await Promise.all(job.data.items.map((delivery) => postDelivery(target, delivery.eventId, delivery.body)));
  },
  () => floorAgent.close(),
);
