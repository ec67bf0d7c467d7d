import { setMaxListeners } from 'node:events';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Metrics, type MetricCounter } from '@app/observability';
import { claimLeaseMs, nextRetryDelay, type Job, type LaneJob, type LaneProcessor } from '@app/queue';
import { PushConfig } from './push.config';
import { platformOf, type SendItem } from './push-queue';
import { PushRepository, type AttemptResult, type ClaimedItem } from './push.repository';
import { PUSH_PROVIDERS, type PushProviders, type SendOutcome } from './providers/push-provider';

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
    const outcomes = await Promise.all(
      claimed.map((item) => provider.send({ id: item.id, device: item.device, title: item.title, body: item.body, urlScheme: item.url_scheme }, deadline)),
    );
    const invalid = claimed.flatMap((item, i) =>
      outcomes[i].kind === 'invalid_token' ? [{ accountId: item.account_id, device: item.device, reason: (outcomes[i] as { error: string }).error }] : [],
    );
    await this.repository.markInvalid(platform, invalid);
    const results = claimed.map((item, i) => this.decide(item, outcomes[i]));
    await this.repository.record(results);
    for (const outcome of ['sent', 'failed', 'invalid_token'] as const) {
      this.results.inc({ provider: provider.name, outcome }, results.filter((r) => r.status === outcome).length);
    }
  }

  /** After the lanes' workers finished the sends in flight (before shutdown). */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(this.providers).map((provider) => provider.close()));
  }

  private decide(item: ClaimedItem, outcome: SendOutcome): AttemptResult {
    const base = { id: item.id, attempt: item.attempt, provider_id: null, retry_in_ms: null };
    switch (outcome.kind) {
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
