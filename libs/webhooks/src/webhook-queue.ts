import type { LaneJob } from '@app/queue';

/** The BullMQ queue that carries due deliveries from the outbox relay to the delivery workers. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
/** Its only job: one attempt of each of up to DELIVERIES_PER_JOB deliveries to one webhook. */
export const DELIVER_JOB = 'deliver';

/**
 * Deliveries to one webhook that travel in one job: one Redis round trip for several,
 * still sent as separate, concurrent requests and recorded one by one.
 */
export const DELIVERIES_PER_JOB = 16;

/** One attempt of one delivery, as a job carries it. */
export interface DeliveryAttempt {
  /** The delivery's id. */
  id: string;
  /** 1-based number of this attempt. */
  attempt: number;
  /** Its place in the retry schedule (1-based; a redelivery starts the schedule again). */
  scheduleAttempt: number;
  /** The `webhook-id` header: the event's id, the same on every attempt. */
  eventId: string;
  /** The event's type (a span attribute). */
  eventType?: string;
  /** The trace context of the request that wrote the delivery (LaneItem.trace). */
  trace?: string | null;
  /** The exact bytes that are signed and sent. */
  body: string;
}

/** A job of `webhook-delivery`: its key is the webhook's id. */
export type DeliverJobData = LaneJob<DeliveryAttempt>;
