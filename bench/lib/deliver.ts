import type { JobsOptions } from 'bullmq';
import { Agent, request } from 'undici';

/** The engines' job options (libs/queue/src/queue-producer.ts), for the floors' jobs. */
export const ENGINE_JOB_OPTIONS: JobsOptions = { removeOnComplete: true, removeOnFail: { count: 1000 }, attempts: 5, backoff: { type: 'exponential', delay: 1000 } };

/** One keep-alive agent per floor process. */
export const floorAgent = new Agent({ keepAliveTimeout: 30_000 });

/** What a floor does per delivery: POST the body with undici, read the answer, fail unless it is 200. No signing. */
export async function postDelivery(target: string, eventId: string, body: string): Promise<void> {
  const res = await request(target, {
    method: 'POST',
    dispatcher: floorAgent,
    headers: { 'content-type': 'application/json', 'webhook-id': eventId },
    body,
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
}
