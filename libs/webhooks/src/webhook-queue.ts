/** The BullMQ queue that carries due deliveries from the outbox relay to the delivery workers. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
/** Its only job: one attempt of each of up to DELIVERIES_PER_JOB deliveries to one webhook. */
export const DELIVER_JOB = 'deliver';

/**
 * Deliveries to one webhook that travel in one job: one Redis round trip for several,
 * still sent as separate, concurrent requests and recorded one by one.
 */
export const DELIVERIES_PER_JOB = 16;

export interface DeliverJobData {
  webhookId: string;
  deliveries: DeliveryAttempt[];
}

export interface DeliveryAttempt {
  deliveryId: string;
  /** 1-based number of this attempt. */
  attempt: number;
  /** Its place in the retry schedule (1-based; a redelivery starts the schedule again). */
  scheduleAttempt: number;
  /** The `webhook-id` header: the event's id, the same on every attempt. */
  eventId: string;
  /** The exact bytes that are signed and sent. */
  body: string;
}

/** Named by its first delivery's attempt: a batch queued again for the same attempts is not added twice. */
export function deliverJobId(job: DeliverJobData): string {
  const first = job.deliveries[0];
  return `${first.deliveryId}-${first.attempt}`;
}
