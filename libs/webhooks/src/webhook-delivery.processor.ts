import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { inSpan, linkTo, type Span } from '@app/observability';
import { claimLeaseMs, nextRetryDelay, type Job, type LaneProcessor } from '@app/queue';
import { AttemptRecorder } from './webhook-attempt.recorder';
import { WebhookServiceConfig } from './webhook.config';
import { WEBHOOK_ENGINE_OPTIONS, type WebhookEngineOptions } from './webhook-engine.options';
import { WEBHOOK_DELIVERY_QUEUE, type DeliverJobData, type DeliveryAttempt } from './webhook-queue';
import { WebhookSender, type AttemptOutcome } from './webhook-sender';
import { WebhookSubscriptions, type DeliveryTarget } from './webhook-subscriptions.service';
import { TargetPolicy } from './webhook-target';
import { WebhookAttemptsRepository, type AttemptRecord } from './webhook-attempts.repository';
import { WebhookRegistrationsRepository } from './webhook-registrations.repository';

/**
 * The one processor of `webhook-delivery` (its lane is in webhook-lane.ts): one attempt of each
 * delivery in the job (up to DELIVERIES_PER_JOB to one webhook, sent concurrently). The relay queues
 * at most WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK deliveries per webhook, so a slow receiver holds at most
 * that many of the WEBHOOK_CONCURRENCY slots, each for at most WEBHOOK_TIMEOUT_SECONDS.
 * Should more run here anyway (a lost job queued again while the original still runs, or a job the
 * relay queued into the room its first deliveries made), the extra job waits in this process until
 * the webhook's deliveries in flight leave room for its own, not counted as an attempt.
 *
 * Before sending, the job's attempts are claimed in PostgreSQL (WebhookAttemptsRepository.claim, lease
 * WEBHOOK_TIMEOUT_SECONDS + 5 s): a job that runs a second time, on this worker or another, sends
 * only what no live claim holds and nothing already recorded, and only the claim's holder records.
 */
@Injectable()
export class WebhookDeliveryProcessor implements LaneProcessor<DeliveryAttempt>, OnApplicationShutdown {
  private readonly logger = new Logger(`Worker ${WEBHOOK_DELIVERY_QUEUE}`);
  private readonly sender: WebhookSender;
  /** Deliveries in flight (or holding room for a claim) per webhook, in this process. */
  private readonly inFlight = new Map<string, number>();
  /** Jobs waiting for room in a webhook's window; each is woken when one of its deliveries leaves. */
  private readonly waiting = new Map<string, Array<() => void>>();
  private readonly schedule: number[];
  private readonly leaseMs: number;

  constructor(
    private readonly config: WebhookServiceConfig,
    private readonly attempts: WebhookAttemptsRepository,
    private readonly registrations: WebhookRegistrationsRepository,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly recorder: AttemptRecorder,
    @Inject(WEBHOOK_ENGINE_OPTIONS) private readonly options: WebhookEngineOptions,
    policy: TargetPolicy,
  ) {
    this.sender = new WebhookSender(policy, config.WEBHOOK_TIMEOUT_SECONDS * 1000, options.trustedCertificates);
    this.schedule = config.retrySchedule;
    this.leaseMs = claimLeaseMs(config.WEBHOOK_TIMEOUT_SECONDS * 1000);
  }

  /** After the lane's worker finished the jobs in flight (before shutdown), so no attempt loses its connection. */
  onApplicationShutdown(): Promise<void> {
    return this.sender.close();
  }

  async process(job: Job<DeliverJobData>): Promise<void> {
    const { key: webhookId, items } = job.data;
    const target = await this.subscriptions.target(webhookId);
    // Deleted: its deliveries went with it.
    if (!target) return;
    // Room in the webhook's window is held from here, so no other job takes it while this one claims.
    let held = target.status === 'active' ? await this.hold(webhookId, items.length) : 0;
    try {
      const claim = randomUUID();
      const claimed = await this.attempts.claim(items, claim, this.leaseMs);
      const deliveries = items.filter((d) => claimed.has(d.id)).map((d) => ({ ...d, claim }));
      if (deliveries.length === 0) return;
      if (target.status !== 'active') {
        // Inactive: it gets nothing.
        await Promise.all(deliveries.map((d) => this.recorder.record(cancelled(d))));
        return;
      }
      // What was not claimed leaves the count now. Each delivery leaves it when its attempt is done, as its row
      // leaves the relay's count (queued_at cleared); the webhook has room in the queue again once this returns:
      // the lane's worker asks the relay for one run.
      for (; held > deliveries.length; held--) this.release(webhookId);
      held = 0;
      await Promise.all(deliveries.map((delivery) => this.attempt(target, delivery).finally(() => this.release(webhookId))));
    } finally {
      for (; held > 0; held--) this.release(webhookId);
    }
  }

  /**
   * Counts `n` deliveries of the webhook as in flight, once they fit in WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK with those
   * already in flight here (or none are): until then the job waits, woken as deliveries leave. Returns `n`.
   */
  private async hold(webhookId: string, n: number): Promise<number> {
    for (;;) {
      const running = this.inFlight.get(webhookId) ?? 0;
      if (running === 0 || running + n <= this.config.WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK) {
        this.inFlight.set(webhookId, running + n);
        return n;
      }
      await new Promise<void>((resolve) => this.waiting.set(webhookId, [...(this.waiting.get(webhookId) ?? []), resolve]));
    }
  }

  private release(webhookId: string): void {
    const left = this.inFlight.get(webhookId)! - 1;
    if (left === 0) this.inFlight.delete(webhookId);
    else this.inFlight.set(webhookId, left);
    const waiting = this.waiting.get(webhookId);
    if (!waiting) return;
    this.waiting.delete(webhookId);
    for (const wake of waiting) wake();
  }

  /**
   * One request, its outcome recorded as soon as it is known. Its span continues the trace of the request that
   * wrote the delivery; a later attempt (a retry, a redelivery) is a new span in that trace, linked to it.
   * The POST itself is the span's child (the undici instrumentation), and carries `traceparent`.
   */
  private attempt(target: DeliveryTarget, delivery: ClaimedAttempt): Promise<void> {
    const attributes = {
      'app.owner': target.owner,
      'app.webhook.id': target.id,
      'app.delivery.id': delivery.id,
      'app.event.type': delivery.eventType ?? '',
      'app.attempt': delivery.attempt,
      'app.trigger': trigger(delivery),
    };
    const links = delivery.attempt > 1 ? [linkTo(delivery.trace, { 'app.attempt': delivery.attempt })] : [];
    return inSpan('webhook deliver', { attributes, links }, (span) => this.send(target, delivery, span), delivery.trace);
  }

  private async send(target: DeliveryTarget, delivery: ClaimedAttempt, span: Span): Promise<void> {
    const signed = this.options.signer?.sign(target.secrets, delivery.eventId, Math.floor(Date.now() / 1000), delivery.body) ?? {};
    const outcome = await this.sender.send(target.url, { ...target.headers, ...signed }, delivery.body);
    const decision = this.decide(delivery, outcome);
    span.setAttributes({ 'http.response.status_code': outcome.status ?? 0, 'app.delivery.status': decision.status });
    // The attempt log keeps the cause too, but an operator looks at the log first (an untrusted CA, a refused connection).
    if (!outcome.ok) {
      this.logger.warn(
        { webhookId: target.id, deliveryId: delivery.id, attempt: delivery.attempt, status: outcome.status, cause: outcome.error, next: decision.status },
        `webhook delivery failed: ${outcome.error}`,
      );
    }
    const recorded = await this.recorder.record(decision);
    if (recorded) await this.afterAttempt(target, outcome);
  }

  private decide(delivery: ClaimedAttempt, outcome: AttemptOutcome): AttemptRecord {
    const { id, attempt, claim, scheduleAttempt } = delivery;
    const base = {
      id,
      attempt,
      claim,
      trigger: trigger(delivery),
      response_status: outcome.status,
      duration_ms: outcome.durationMs,
      error: outcome.error,
      response_body: outcome.body,
    };
    if (outcome.ok) return { ...base, status: 'succeeded', retry_in_ms: null };
    const delay = outcome.retryable ? nextRetryDelay(this.schedule, scheduleAttempt, outcome.retryAfterSeconds) : null;
    return delay === null ? { ...base, status: 'failed', retry_in_ms: null } : { ...base, status: 'retrying', retry_in_ms: delay };
  }

  /** Tracks the webhook's health: 410 disables it, and so does failing for WEBHOOK_DISABLE_AFTER_SECONDS without a success. */
  private async afterAttempt(target: DeliveryTarget, outcome: AttemptOutcome): Promise<void> {
    if (outcome.ok) {
      if (target.failing) {
        await this.registrations.clearFailing(target.id);
        this.subscriptions.changed(target.owner, target.id);
      }
      return;
    }
    let reason: string | null = outcome.gone ? 'The receiver answered 410 Gone.' : null;
    if (!reason) {
      const failingFor = await this.registrations.markFailing(target.id);
      if (!target.failing) this.subscriptions.changed(target.owner, target.id);
      if (failingFor >= this.config.WEBHOOK_DISABLE_AFTER_SECONDS) reason = `Every delivery failed for ${Math.round(failingFor / 3600)} hours.`;
    }
    if (reason) {
      await this.registrations.disable(target.id, reason);
      this.subscriptions.changed(target.owner, target.id);
      this.logger.warn(`webhook ${target.id} set inactive: ${reason}`);
    }
  }
}

/** An attempt this worker claimed, with its claim's token. */
type ClaimedAttempt = DeliveryAttempt & { claim: string };

/** The first attempt of a redelivery was asked for through the API; every other one follows the schedule. */
function trigger(delivery: DeliveryAttempt): 'schedule' | 'redeliver' {
  return delivery.attempt > 1 && delivery.scheduleAttempt === 1 ? 'redeliver' : 'schedule';
}

function cancelled(delivery: ClaimedAttempt): AttemptRecord {
  return {
    id: delivery.id,
    attempt: delivery.attempt,
    claim: delivery.claim,
    trigger: trigger(delivery),
    status: 'cancelled',
    response_status: null,
    duration_ms: null,
    error: 'The webhook is inactive.',
    response_body: null,
    retry_in_ms: null,
  };
}
