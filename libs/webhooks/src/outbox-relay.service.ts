import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { ThrottledWarning } from './throttled-warning';
import { WebhookServiceConfig } from './webhook.config';
import { DELIVERIES_PER_JOB, type DeliverJobData, type DeliveryAttempt } from './webhook-queue';
import { WebhookQueue } from './webhook-queue.provider';
import { WebhooksRepository, type QueuedDelivery } from './webhooks.repository';

const BATCH = 500;
const RERUN_PAUSE_MS = 5;

/**
 * Moves due deliveries from the outbox table into the `webhook-delivery` queue. It runs
 * when a write recorded events (kick), when a worker finished one, and every
 * WEBHOOK_RELAY_INTERVAL_MS (retries falling due, other replicas' writes, Redis coming
 * back). Runs never overlap in a process; replicas skip each other's rows (SKIP LOCKED).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OutboxRelay');
  private readonly failure = new ThrottledWarning('OutboxRelay');
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private timers: NodeJS.Timeout[] = [];
  private readonly perWebhook: number;

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly queue: WebhookQueue,
    private readonly config: WebhookServiceConfig,
  ) {
    // Jobs in the queue (waiting or running) per webhook, across all workers: a receiver never has more requests
    // in flight than this, and no other webhook's job ever waits behind more than this many of its jobs.
    this.perWebhook = config.WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK;
  }

  onApplicationBootstrap(): void {
    this.timers.push(setInterval(() => this.kick(), this.config.WEBHOOK_RELAY_INTERVAL_MS).unref());
    const sweep = Math.min(this.config.WEBHOOK_REQUEUE_AFTER_SECONDS * 1000, 60_000);
    this.timers.push(setInterval(() => void this.requeueLost(), sweep).unref());
    this.kick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    await this.running;
  }

  /** Asks for a run; runs requested while one is going coalesce into one more. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => (this.running = null));
  }

  /** Resolves when everything due now has been handed to the queue (for tests and shutdown). */
  async drain(): Promise<void> {
    while (this.running) await this.running;
    this.kick();
    await this.running;
  }

  private async run(): Promise<void> {
    try {
      for (;;) {
        this.again = false;
        const moved = await this.repository.relay(this.perWebhook, BATCH, (rows) => this.queue.add(toJobs(rows)));
        if (moved === BATCH) this.again = true;
        if (!this.again || this.stopped) break;
        // Under load every write and every finished job asks for a run: a short pause lets
        // those requests gather, so each run (one transaction) moves many rows, not a few.
        await new Promise((resolve) => setTimeout(resolve, RERUN_PAUSE_MS));
      }
    } catch (error) {
      this.warn(error as Error);
    }
  }

  private async requeueLost(): Promise<void> {
    try {
      const count = await this.repository.requeueStale(this.config.WEBHOOK_REQUEUE_AFTER_SECONDS);
      if (count > 0) {
        this.logger.warn(`queued ${count} deliveries again whose jobs were lost`);
        this.kick();
      }
    } catch (error) {
      this.warn(error as Error);
    }
  }

  private warn(error: Error): void {
    this.failure.warn(`outbox relay: ${error.message}; deliveries wait in the outbox`);
  }
}

/** Deliveries grouped by webhook, DELIVERIES_PER_JOB to a job. */
function toJobs(rows: QueuedDelivery[]): DeliverJobData[] {
  const byWebhook = new Map<string, DeliveryAttempt[]>();
  for (const row of rows) {
    const list = byWebhook.get(row.webhook_id) ?? [];
    list.push(toAttempt(row));
    byWebhook.set(row.webhook_id, list);
  }
  const jobs: DeliverJobData[] = [];
  for (const [webhookId, deliveries] of byWebhook) {
    for (let i = 0; i < deliveries.length; i += DELIVERIES_PER_JOB) jobs.push({ webhookId, deliveries: deliveries.slice(i, i + DELIVERIES_PER_JOB) });
  }
  return jobs;
}

/** The payload is built once per attempt from the stored event; its bytes are what gets signed. */
function toAttempt(row: QueuedDelivery): DeliveryAttempt {
  return {
    deliveryId: row.id,
    attempt: row.attempts + 1,
    scheduleAttempt: row.attempts + 1 - row.retry_from,
    eventId: row.event_id,
    body: JSON.stringify({ id: row.event_id, type: row.event_type, created_at: row.occurred_at, client_id: row.client_id, data: row.data }),
  };
}
