import { nextRetryDelay, QueueWorker, type Job } from '@app/queue';
import type { Platform } from './push-payload';
import { PUSH_QUEUES, type SendJobData } from './push-queue';
import { PushRepository, type AttemptResult, type ClaimedItem } from './push.repository';
import type { PushProvider, SendOutcome } from './providers/push-provider';

export interface SendProcessorOptions {
  platform: Platform;
  provider: PushProvider;
  repository: PushRepository;
  /** Seconds between attempts; its length is the number of retries. */
  retrySchedule: number[];
  /** A claim older than this was left by a worker that died mid-send; its item may be claimed again. */
  staleClaimMs: number;
  /** Called when a job finished: the account has room in the queue again. */
  finished: () => void;
  /** Called with the outcomes a job recorded (metrics count them). */
  recorded?: (results: AttemptResult[]) => void;
}

/**
 * The one processor of `send` jobs (one instance per platform queue): claims the job's
 * attempts in PostgreSQL, sends the claimed pushes concurrently, marks devices the
 * provider called invalid, and records every outcome in one statement.
 */
export class PushSendProcessor extends QueueWorker<SendJobData> {
  constructor(private readonly options: SendProcessorOptions) {
    super(PUSH_QUEUES[options.platform]);
  }

  protected async process(job: Job<SendJobData>): Promise<void> {
    const { platform, provider, repository } = this.options;
    const claimed = await repository.claim(platform, job.data.items, this.options.staleClaimMs);
    if (claimed.length > 0) {
      const outcomes = await Promise.all(claimed.map((item) => provider.send({ id: item.id, device: item.device, title: item.title, body: item.body, urlScheme: item.url_scheme })));
      const invalid = claimed.flatMap((item, i) => (outcomes[i].kind === 'invalid_token' ? [{ accountId: item.account_id, device: item.device, reason: (outcomes[i] as { error: string }).error }] : []));
      await repository.markInvalid(platform, invalid);
      const results = claimed.map((item, i) => this.decide(item, outcomes[i]));
      await repository.record(results);
      this.options.recorded?.(results);
    }
    this.options.finished();
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
        const delay = nextRetryDelay(this.options.retrySchedule, item.attempt, outcome.retryAfterSeconds);
        if (delay === null) return { ...base, status: 'failed', error: `gave up after ${item.attempt} attempts: ${outcome.error}` };
        return { ...base, status: 'scheduled', error: outcome.error, retry_in_ms: delay };
      }
    }
  }
}
