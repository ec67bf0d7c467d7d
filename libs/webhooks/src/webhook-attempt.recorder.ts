import { Injectable, Optional } from '@nestjs/common';
import { Metrics, type MetricCounter, type MetricHistogram } from '@app/observability';
import { WebhookAttemptsRepository, type AttemptRecord } from './webhook-attempts.repository';

interface Waiting {
  record: AttemptRecord;
  resolve(recorded: boolean): void;
  reject(error: unknown): void;
}

/** Seconds: from a delivery on the first attempt (≈ 50 ms) to one after a day of retries. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400];

/**
 * Writes attempt outcomes in groups: the attempts that finish while one UPDATE runs go
 * together in the next, so a busy worker pays one statement per group, not per
 * delivery. Each caller still waits for its own row to be written.
 */
@Injectable()
export class AttemptRecorder {
  private waiting: Waiting[] = [];
  private flushing = false;
  private readonly deliveries?: MetricCounter<'outcome'>;
  private readonly lag?: MetricHistogram<never>;

  constructor(
    private readonly attempts: WebhookAttemptsRepository,
    @Optional() metrics?: Metrics,
  ) {
    this.deliveries = metrics?.counter('webhook_deliveries_total', 'Webhook delivery attempts by outcome (succeeded, retrying, failed, cancelled).', [
      'outcome',
    ]);
    this.lag = metrics?.histogram(
      'webhook_delivery_lag_seconds',
      'From the event (its delivery row created) to its successful delivery recorded, retries and redeliveries included.',
      [],
      LAG_BUCKETS,
    );
  }

  /** Resolves true once written, false when the attempt was a duplicate (nothing changed). */
  record(record: AttemptRecord): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ record, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    while (this.waiting.length > 0) {
      const group = this.waiting;
      this.waiting = [];
      try {
        const written = await this.attempts.recordAttempts(group.map((w) => w.record));
        for (const w of group) {
          const age = written.get(w.record.id);
          const recorded = age !== undefined;
          if (recorded) this.deliveries?.inc({ outcome: w.record.status });
          if (recorded && w.record.status === 'succeeded') this.lag?.observe({}, age);
          w.resolve(recorded);
        }
      } catch (error) {
        for (const w of group) w.reject(error);
      }
    }
    this.flushing = false;
  }
}
