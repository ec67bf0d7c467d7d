import { Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DelayedError, Worker, type Job } from 'bullmq';
import Redis from 'ioredis';
import { OutboxRelay } from './outbox-relay.service';
import { ThrottledWarning } from './throttled-warning';
import { AttemptRecorder } from './webhook-attempt.recorder';
import { WebhookServiceConfig } from './webhook.config';
import { queuePrefix, WEBHOOK_DELIVERY_QUEUE, type DeliverJobData, type DeliveryAttempt } from './webhook-queue';
import { nextRetryDelay } from './webhook-retry';
import { WebhookSender, type AttemptOutcome } from './webhook-sender';
import { signedHeaders } from './webhook-signature';
import { WebhookSubscriptions } from './webhook-subscriptions.service';
import { TargetPolicy } from './webhook-target';
import { WebhooksRepository, type AttemptRecord, type DeliveryTarget } from './webhooks.repository';

/**
 * The one processor of `webhook-delivery`: one attempt of each delivery in the job (up to
 * DELIVERIES_PER_JOB to one webhook, sent concurrently). The relay queues at most
 * WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK jobs per webhook, so a slow receiver holds at most that
 * many of the WEBHOOK_CONCURRENCY slots, each for at most WEBHOOK_TIMEOUT_SECONDS. Should
 * more run here anyway (a lost job queued again while the original still runs), the extra
 * job goes back to the queue for a moment, not counted as an attempt.
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('WebhookDelivery');
  private readonly failure = new ThrottledWarning('WebhookDelivery');
  private worker?: Worker<DeliverJobData>;
  private connection?: Redis;
  private readonly sender: WebhookSender;
  private readonly inFlight = new Map<string, number>();
  private readonly schedule: number[];

  constructor(
    private readonly config: WebhookServiceConfig,
    private readonly repository: WebhooksRepository,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly recorder: AttemptRecorder,
    private readonly relay: OutboxRelay,
    policy: TargetPolicy,
  ) {
    this.sender = new WebhookSender(policy, config.WEBHOOK_TIMEOUT_SECONDS * 1000);
    this.schedule = config.retrySchedule;
  }

  onApplicationBootstrap(): void {
    if (this.config.WEBHOOK_WORKERS === 'off') return;
    const connection = (this.connection = new Redis(this.config.REDIS_URL, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 200, 2000) }));
    connection.on('error', (error) => this.failure.warn(`webhook worker: ${error.message}`));
    this.worker = new Worker<DeliverJobData>(WEBHOOK_DELIVERY_QUEUE, (job, token) => this.process(job, token), {
      connection,
      prefix: queuePrefix(this.config),
      concurrency: this.config.WEBHOOK_CONCURRENCY,
    });
    this.worker.on('error', (error) => this.failure.warn(`webhook worker: ${error.message}`));
    this.worker.on('failed', (job, error) => {
      if (!(error instanceof DelayedError)) this.logger.warn(`deliveries of job ${job?.id} not recorded: ${error.message}`);
    });
  }

  /**
   * Stops taking jobs and waits for the ones in flight (each ends within the timeout), while
   * PostgreSQL is still connected so their outcomes are recorded.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    this.connection?.disconnect();
    await this.sender.close();
  }

  async process(job: Job<DeliverJobData>, token?: string): Promise<void> {
    const { webhookId, deliveries } = job.data;
    const target = await this.subscriptions.target(webhookId);
    if (!target || target.status !== 'active') {
      // Deleted: its deliveries went with it. Inactive: it gets nothing.
      if (target) await Promise.all(deliveries.map((d) => this.recorder.record(cancelled(d.deliveryId, d.attempt))));
      return;
    }
    const running = this.inFlight.get(webhookId) ?? 0;
    if (running > 0 && running + deliveries.length > this.config.WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK) {
      await job.moveToDelayed(Date.now() + 200 + Math.floor(Math.random() * 800), token);
      throw new DelayedError();
    }
    this.inFlight.set(webhookId, running + deliveries.length);
    try {
      await Promise.all(deliveries.map((delivery) => this.attempt(target, delivery)));
    } finally {
      const left = this.inFlight.get(webhookId)! - deliveries.length;
      if (left === 0) this.inFlight.delete(webhookId);
      else this.inFlight.set(webhookId, left);
    }
    // The webhook has room in the queue again: one relay run for the whole job.
    this.relay.kick();
  }

  /** One request, its outcome recorded as soon as it is known. */
  private async attempt(target: DeliveryTarget, delivery: DeliveryAttempt): Promise<void> {
    const { deliveryId, attempt, scheduleAttempt, eventId, body } = delivery;
    const headers = { ...target.headers, ...signedHeaders(target.secrets, eventId, Math.floor(Date.now() / 1000), body) };
    const outcome = await this.sender.send(target.url, headers, body);
    const recorded = await this.recorder.record(this.decide(deliveryId, attempt, scheduleAttempt, outcome));
    if (recorded) await this.afterAttempt(target, outcome);
  }

  private decide(id: string, attempt: number, scheduleAttempt: number, outcome: AttemptOutcome): AttemptRecord {
    const base = { id, attempt, response_status: outcome.status, duration_ms: outcome.durationMs, error: outcome.error };
    if (outcome.ok) return { ...base, status: 'succeeded', retry_in_ms: null };
    const delay = outcome.retryable ? nextRetryDelay(this.schedule, scheduleAttempt, outcome.retryAfterSeconds) : null;
    return delay === null ? { ...base, status: 'failed', retry_in_ms: null } : { ...base, status: 'retrying', retry_in_ms: delay };
  }

  /** Tracks the webhook's health: 410 disables it, and so does failing for WEBHOOK_DISABLE_AFTER_SECONDS without a success. */
  private async afterAttempt(target: DeliveryTarget, outcome: AttemptOutcome): Promise<void> {
    if (outcome.ok) {
      if (target.failing) {
        await this.repository.clearFailing(target.id);
        this.subscriptions.changed(target.client_id, target.id);
      }
      return;
    }
    let reason: string | null = outcome.gone ? 'The receiver answered 410 Gone.' : null;
    if (!reason) {
      const failingFor = await this.repository.markFailing(target.id);
      if (!target.failing) this.subscriptions.changed(target.client_id, target.id);
      if (failingFor >= this.config.WEBHOOK_DISABLE_AFTER_SECONDS) reason = `Every delivery failed for ${Math.round(failingFor / 3600)} hours.`;
    }
    if (reason) {
      await this.repository.disable(target.id, reason);
      this.subscriptions.changed(target.client_id, target.id);
      this.logger.warn(`webhook ${target.id} set inactive: ${reason}`);
    }
  }
}

function cancelled(id: string, attempt: number): AttemptRecord {
  return { id, attempt, status: 'cancelled', response_status: null, duration_ms: null, error: 'The webhook is inactive.', retry_in_ms: null };
}
