import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { inSpan, linkTo, Metrics, type MetricCounter } from '@app/observability';
import { claimLeaseMs, nextRetryDelay, type Job, type LaneJob, type LaneProcessor } from '@app/queue';
import { PushConfig } from './push.config';
import { platformOf, type SendItem } from './push-queue';
import { PushRepository, type AttemptResult, type ClaimedItem } from './push.repository';
import { PUSH_PROVIDERS, type PushProviders, type SendOutcome } from './providers/push-provider';
import { PushLimits } from './push-limits.service';
import { OpenTokens } from './push-open-token';
import type { Platform } from './push-payload';

/** What becomes of one claimed push before any send: sent after `delayMs` (its throttle slot), capped, or deferred. */
type Step = { kind: 'send'; delayMs: number; lateMs?: number } | { kind: 'capped'; error: string } | { kind: 'deferred'; delayMs: number };

/** How soon a push waits again when Redis cannot say whether its cap or throttle allows it. */
const LIMITS_UNAVAILABLE_RETRY_MS = 1000;

/**
 * The one processor of `send` jobs, for both platform lanes (push-lanes.provider.ts): claims the
 * job's attempts in PostgreSQL, sends the claimed pushes concurrently, marks devices the
 * provider called invalid, and records every outcome in one statement.
 */
@Injectable()
export class PushSendProcessor implements LaneProcessor<SendItem>, OnApplicationShutdown {
  private readonly retrySchedule: number[];
  private readonly results: MetricCounter<'provider' | 'outcome'>;

  constructor(
    private readonly repository: PushRepository,
    private readonly config: PushConfig,
    @Inject(PUSH_PROVIDERS) private readonly providers: PushProviders,
    private readonly limits: PushLimits,
    private readonly openTokens: OpenTokens,
    metrics: Metrics,
  ) {
    this.retrySchedule = config.retrySchedule;
    this.results = metrics.counter('push_results_total', 'Push notifications by provider (fcm, apns) and outcome (sent, failed, invalid_token).', [
      'provider',
      'outcome',
    ]);
  }

  async process(job: Job<LaneJob<SendItem>>): Promise<void> {
    const platform = platformOf(job.queueName);
    const provider = this.providers[platform];
    const claimed = await this.repository.claim(platform, job.data.items, claimLeaseMs(this.config.timeoutMs));
    if (claimed.length === 0) return;
    // One timer for the job's sends: each ends within the send timeout of the claim, so within the claim's lease.
    const deadline = AbortSignal.timeout(this.config.timeoutMs);
    setMaxListeners(claimed.length, deadline);
    const steps = await this.pace(platform, claimed);
    const traces = new Map(job.data.items.map((item) => [item.id, item.trace]));
    const outcomes = await Promise.all(
      claimed.map(async (item, i): Promise<SendOutcome | Step> => {
        const step = steps[i];
        if (step.kind !== 'send') return step;
        if (!(await this.awaitSlot(step))) return { kind: 'deferred', delayMs: 50 } as Step;
        return this.send(platform, provider, item, traces.get(item.id), deadline);
      }),
    );
    const invalid = claimed.flatMap((item, i) =>
      outcomes[i].kind === 'invalid_token' ? [{ accountId: item.account_id, device: item.device, reason: (outcomes[i] as { error: string }).error }] : [],
    );
    await this.repository.markInvalid(platform, invalid);
    const results = claimed.map((item, i) => this.decide(item, outcomes[i]));
    await this.repository.record(results);
    await this.releaseUndelivered(platform, claimed, results);
    for (const outcome of ['sent', 'failed', 'invalid_token'] as const) {
      this.results.inc({ provider: provider.name, outcome }, results.filter((r) => r.status === outcome).length);
    }
  }

  /**
   * One push to its provider, in a span that continues the trace of the request that accepted it (a retry is a
   * new span in that trace, linked to it); the provider's HTTP call is the span's child (the undici instrumentation).
   */
  private send(
    platform: string,
    provider: PushProviders[keyof PushProviders],
    item: ClaimedItem,
    trace: string | null | undefined,
    deadline: AbortSignal,
  ): Promise<SendOutcome> {
    const attributes = {
      'app.account.id': item.account_id,
      'app.push.id': item.id,
      'app.push.platform': platform,
      'app.attempt': item.attempt,
      'app.provider': provider.name,
    };
    const links = item.attempt > 1 ? [linkTo(trace, { 'app.attempt': item.attempt })] : [];
    return inSpan(
      'push send',
      { attributes, links },
      async (span) => {
        const openToken = this.openTokens.sign(item.id);
        const outcome = await provider.send(
          { id: item.id, device: item.device, title: item.title, body: item.body, urlScheme: item.url_scheme, openToken },
          deadline,
        );
        span.setAttribute('app.push.outcome', outcome.kind);
        return outcome;
      },
      trace,
    );
  }

  /** After the lanes' workers finished the sends in flight (before shutdown). */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(this.providers).map((provider) => provider.close()));
  }

  /**
   * The frequency cap, then the batch throttle, of each claimed push: one Redis call per capped device and
   * one per throttled batch of the job. A push the throttle cannot slot within half the send timeout goes
   * back to `scheduled` for when its slot comes (not an attempt); so does one whose limits Redis cannot check.
   */
  private async pace(platform: Platform, claimed: ClaimedItem[]): Promise<Step[]> {
    const steps: Step[] = await Promise.all(
      claimed.map(async (item): Promise<Step> => {
        if (item.cap_max_pushes === null || item.cap_window_hours === null) return { kind: 'send', delayMs: 0 };
        try {
          const ok = await this.limits.withinCap(item.account_id, platform, item.device, item.id, item.cap_max_pushes, item.cap_window_hours);
          return ok
            ? { kind: 'send', delayMs: 0 }
            : { kind: 'capped', error: `frequency cap: ${item.cap_max_pushes} pushes in ${item.cap_window_hours} h reached` };
        } catch {
          return { kind: 'deferred', delayMs: LIMITS_UNAVAILABLE_RETRY_MS };
        }
      }),
    );
    const byBatch = new Map<string, { throttle: number; indexes: number[] }>();
    claimed.forEach((item, i) => {
      if (item.throttle === null || steps[i].kind !== 'send') return;
      const group = byBatch.get(item.batch_id) ?? { throttle: item.throttle, indexes: [] };
      group.indexes.push(i);
      byBatch.set(item.batch_id, group);
    });
    const horizonMs = Math.min(this.config.timeoutMs / 2, 5000);
    await Promise.all(
      [...byBatch].map(async ([batchId, { throttle, indexes }]) => {
        try {
          const slots = await this.limits.reserve(batchId, throttle, indexes.length, horizonMs);
          indexes.forEach((index, j) => {
            steps[index] =
              j < slots.granted
                ? { kind: 'send', delayMs: slots.firstMs + j * slots.intervalMs, lateMs: slots.intervalMs / 2 }
                : { kind: 'deferred', delayMs: Math.max(50, slots.nextMs + (j - slots.granted) * slots.intervalMs - horizonMs) };
          });
        } catch {
          for (const index of indexes) steps[index] = { kind: 'deferred', delayMs: LIMITS_UNAVAILABLE_RETRY_MS };
        }
      }),
    );
    return steps;
  }

  /**
   * Waits for a throttled push's slot. A slot missed by more than one interval (a busy event loop) is
   * not used late beside the next ones: the push is put off (false) and takes a new slot when it comes back.
   */
  private async awaitSlot(step: { delayMs: number; lateMs?: number }): Promise<boolean> {
    if (step.delayMs <= 0) return true;
    const slot = Date.now() + step.delayMs;
    await sleep(step.delayMs);
    return step.lateMs === undefined || Date.now() - slot <= step.lateMs;
  }

  /** A capped push counted against its device but not delivered (failed, invalid token) leaves the count. */
  private async releaseUndelivered(platform: Platform, claimed: ClaimedItem[], results: AttemptResult[]): Promise<void> {
    const undelivered = claimed.filter((item, i) => item.cap_max_pushes !== null && (results[i].status === 'failed' || results[i].status === 'invalid_token'));
    await Promise.all(undelivered.map((item) => this.limits.release(item.account_id, platform, item.device, item.id).catch(() => undefined)));
  }

  private decide(item: ClaimedItem, outcome: SendOutcome | Step): AttemptResult {
    const base = { id: item.id, attempt: item.attempt, provider_id: null, retry_in_ms: null };
    switch (outcome.kind) {
      case 'send':
        throw new Error('a push to send has no outcome');
      case 'capped':
        return { ...base, status: 'capped', error: outcome.error };
      case 'deferred':
        return { ...base, status: 'deferred', error: null, retry_in_ms: Math.round(outcome.delayMs) };
      case 'sent':
        return { ...base, status: 'sent', error: null, provider_id: outcome.providerId };
      case 'invalid_token':
      case 'failed':
        return { ...base, status: outcome.kind, error: outcome.error };
      case 'retry': {
        const delay = nextRetryDelay(this.retrySchedule, item.attempt, outcome.retryAfterSeconds);
        if (delay === null) return { ...base, status: 'failed', error: `gave up after ${item.attempt} attempts: ${outcome.error}` };
        return { ...base, status: 'scheduled', error: outcome.error, retry_in_ms: delay };
      }
    }
  }
}
