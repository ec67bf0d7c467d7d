import { isoTimestamp } from '@app/database';
import { laneToken, registerLane, type QueueLane } from '@app/queue';
import type { Provider } from '@nestjs/common';
import { WebhookServiceConfig } from './webhook.config';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WEBHOOK_ENGINE_OPTIONS, type WebhookEngineOptions } from './webhook-engine.options';
import { DELIVER_JOB, DELIVERIES_PER_JOB, WEBHOOK_DELIVERY_QUEUE, type DeliveryAttempt } from './webhook-queue';
import { WebhookOutboxRepository, type QueuedDelivery } from './webhook-outbox.repository';

/** The webhook lane's handle: kick the relay after a write, drain it in tests. */
export type WebhookLane = QueueLane<QueuedDelivery, DeliveryAttempt>;
/** Its token (`@InjectLane(WEBHOOK_DELIVERY_QUEUE)` in the engine, `app.get(WEBHOOK_LANE)` in tests). */
export const WEBHOOK_LANE = laneToken(WEBHOOK_DELIVERY_QUEUE);

/** The payload is built once per attempt from the stored event; its bytes are what gets signed. */
function toAttempt(row: QueuedDelivery, options: WebhookEngineOptions): DeliveryAttempt {
  return {
    id: row.id,
    attempt: row.attempts + 1,
    scheduleAttempt: row.attempts + 1 - row.retry_from,
    eventId: row.event_id,
    eventType: row.event_type,
    trace: row.trace_context,
    body: options.envelope({ id: row.event_id, type: row.event_type, occurredAt: row.occurred_at, owner: row.owner, data: row.data }),
  };
}

/**
 * The webhook outbox (`webhook_deliveries`) as a lane of libs/queue: due deliveries go to
 * `webhook-delivery`, at most the webhook's delivery window queued per active webhook (see
 * DELIVERY_WINDOW in webhook-attempts.repository.ts; at most WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK),
 * at most WEBHOOK_MAX_IN_FLIGHT_PER_OWNER per owner across its webhooks, owners taking turns in
 * each claim (libs/queue's round-robin claim), DELIVERIES_PER_JOB of one webhook to a job. The relay runs when a write recorded events, when
 * a worker finished a job, every WEBHOOK_RELAY_INTERVAL_MS, and checks for lost jobs at start,
 * when Redis comes back, and every WEBHOOK_REQUEUE_AFTER_SECONDS. Workers run as WEBHOOK_WORKERS says.
 */
export function webhookLane(): Provider[] {
  return registerLane<QueuedDelivery, DeliveryAttempt>({
    queue: WEBHOOK_DELIVERY_QUEUE,
    job: DELIVER_JOB,
    processor: WebhookDeliveryProcessor,
    inject: [WebhookServiceConfig, WebhookOutboxRepository, WEBHOOK_ENGINE_OPTIONS],
    settings: (config: WebhookServiceConfig, outbox: WebhookOutboxRepository, options: WebhookEngineOptions) => ({
      table: outbox.table,
      keyColumn: 'webhook_id',
      keys: outbox.relayKeys,
      keyCaps: true,
      returning: `t.id, t.webhook_id, t.event_id, t.event_type, t.owner, ${isoTimestamp('t.occurred_at')}, t.data, t.attempts, t.retry_from, t.trace_context`,
      key: (row) => row.webhook_id,
      item: (row) => toAttempt(row, options),
      itemsPerJob: DELIVERIES_PER_JOB,
      perKey: config.WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK,
      perOwner: config.WEBHOOK_MAX_IN_FLIGHT_PER_OWNER,
      batch: 500,
      intervalMs: config.WEBHOOK_RELAY_INTERVAL_MS,
      sweepMs: config.WEBHOOK_REQUEUE_AFTER_SECONDS * 1000,
      workers: config.WEBHOOK_WORKERS,
      concurrency: config.WEBHOOK_CONCURRENCY,
    }),
  });
}
