import type { WebhookServiceConfig } from './webhook.config';

/** The BullMQ queue that carries due deliveries from the outbox relay to the delivery workers. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
/** Its only job: one attempt of one delivery. */
export const DELIVER_JOB = 'deliver';

export interface DeliverJobData {
  deliveryId: string;
  webhookId: string;
  /** 1-based number of this attempt. */
  attempt: number;
  /** Its place in the retry schedule (1-based; a redelivery starts the schedule again). */
  scheduleAttempt: number;
  /** The `webhook-id` header: the event's id, the same on every attempt. */
  eventId: string;
  /** The exact bytes that are signed and sent. */
  body: string;
}

/** The queue lives under the service's Redis prefix, so services (and test apps) never share it. */
export function queuePrefix(config: WebhookServiceConfig): string {
  return `${config.REDIS_PREFIX}bull`;
}

/** One job id per attempt: a delivery queued again for the same attempt is not added twice. */
export function deliverJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}-${attempt}`;
}
