import { Injectable, Optional } from '@nestjs/common';
import { Metrics, type MetricCounter } from '@app/observability';
import { WebhookAttemptsRepository, type AttemptRecord } from './webhook-attempts.repository';

interface Waiting {
  record: AttemptRecord;
  resolve(recorded: boolean): void;
  reject(error: unknown): void;
}

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

  constructor(
    private readonly attempts: WebhookAttemptsRepository,
    @Optional() metrics?: Metrics,
  ) {
    this.deliveries = metrics?.counter('webhook_deliveries_total', 'Webhook delivery attempts by outcome (succeeded, retrying, failed, cancelled).', [
      'outcome',
    ]);
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
          const recorded = written.has(w.record.id);
          if (recorded) this.deliveries?.inc({ outcome: w.record.status });
          w.resolve(recorded);
        }
      } catch (error) {
        for (const w of group) w.reject(error);
      }
    }
    this.flushing = false;
  }
}
