import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { isoTimestamp, Sql } from '@app/database';
import { OutboxRelay } from '@app/queue';
import { WebhookServiceConfig } from './webhook.config';
import { WEBHOOK_ENGINE_OPTIONS, type WebhookEngineOptions } from './webhook-engine.options';
import { DELIVER_JOB, DELIVERIES_PER_JOB, deliverJobId, type DeliverJobData, type DeliveryAttempt } from './webhook-queue';
import { WebhookQueue } from './webhook-queue.provider';
import { WebhooksRepository, type QueuedDelivery } from './webhooks.repository';

/**
 * The webhook outbox (`webhook_deliveries`) on the shared relay of libs/queue: due
 * deliveries go to `webhook-delivery`, at most the webhook's delivery window queued per
 * active webhook (see DELIVERY_WINDOW in webhooks.repository.ts; at most
 * WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK), DELIVERIES_PER_JOB to a job. It runs when a write recorded events, when
 * a worker finished a job, every WEBHOOK_RELAY_INTERVAL_MS, and checks for lost jobs at
 * start, when Redis comes back, and every WEBHOOK_REQUEUE_AFTER_SECONDS.
 */
@Injectable()
export class WebhookRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly outbox: OutboxRelay<QueuedDelivery, DeliverJobData>;

  constructor(
    db: Sql,
    repository: WebhooksRepository,
    queue: WebhookQueue,
    config: WebhookServiceConfig,
    @Inject(WEBHOOK_ENGINE_OPTIONS) private readonly options: WebhookEngineOptions,
  ) {
    this.outbox = new OutboxRelay(db, queue, {
      name: 'webhook-delivery',
      table: repository.deliveriesTable,
      keyColumn: 'webhook_id',
      keys: repository.relayKeys,
      returning: `t.id, t.webhook_id, t.event_id, t.event_type, t.owner, ${isoTimestamp('t.occurred_at')}, t.data, t.attempts, t.retry_from`,
      perKey: config.WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK,
      keyCaps: true,
      batch: 500,
      intervalMs: config.WEBHOOK_RELAY_INTERVAL_MS,
      sweepMs: config.WEBHOOK_REQUEUE_AFTER_SECONDS * 1000,
      toJobs: (rows) => this.toJobs(rows),
      rowIds: (data) => data.deliveries.map((d) => d.deliveryId),
    });
  }

  onApplicationBootstrap(): void {
    this.outbox.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.outbox.stop();
  }

  kick(): void {
    this.outbox.kick();
  }

  /** Resolves when everything due now has been handed to the queue. */
  drain(): Promise<void> {
    return this.outbox.drain();
  }

  /** Deliveries grouped by webhook, DELIVERIES_PER_JOB to a job. */
  private toJobs(rows: QueuedDelivery[]) {
    const byWebhook = new Map<string, DeliveryAttempt[]>();
    for (const row of rows) {
      const list = byWebhook.get(row.webhook_id) ?? [];
      list.push(this.toAttempt(row));
      byWebhook.set(row.webhook_id, list);
    }
    const jobs = [];
    for (const [webhookId, deliveries] of byWebhook) {
      for (let i = 0; i < deliveries.length; i += DELIVERIES_PER_JOB) {
        const data: DeliverJobData = { webhookId, deliveries: deliveries.slice(i, i + DELIVERIES_PER_JOB) };
        jobs.push({ name: DELIVER_JOB, data, jobId: deliverJobId(data) });
      }
    }
    return jobs;
  }

  /** The payload is built once per attempt from the stored event; its bytes are what gets signed. */
  private toAttempt(row: QueuedDelivery): DeliveryAttempt {
    return {
      deliveryId: row.id,
      attempt: row.attempts + 1,
      scheduleAttempt: row.attempts + 1 - row.retry_from,
      eventId: row.event_id,
      body: this.options.envelope({ id: row.event_id, type: row.event_type, occurredAt: row.occurred_at, owner: row.owner, data: row.data }),
    };
  }
}
