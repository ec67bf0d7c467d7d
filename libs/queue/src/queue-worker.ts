import { DelayedError, Worker, type Job } from 'bullmq';
import type Redis from 'ioredis';
import { Logger } from '@nestjs/common';
import { bullPrefix, onReconnect, workerRedis, type QueueConnection } from './queue-connection';
import { ThrottledWarning } from './throttled-warning';

export { DelayedError, type Job };

/** How a job ended in this worker; a job handed back (DelayedError) is neither. */
export type JobOutcome = 'completed' | 'failed';

/** The request id a job carries (NewJob.requestId), if any. */
export function requestIdOf(job: Job<unknown> | undefined): string | undefined {
  const data = job?.data as { requestId?: unknown } | undefined;
  return typeof data?.requestId === 'string' ? data.requestId : undefined;
}

/**
 * The one processor of a queue. Subclasses implement `process`; `start` begins taking
 * jobs and `close` shuts down gracefully: it stops taking jobs, waits for the ones in
 * flight (so their outcomes are recorded while the caller still holds PostgreSQL), then
 * closes the connection. A job a subclass hands back (`job.moveToDelayed` + DelayedError)
 * is not a failure.
 */
export abstract class QueueWorker<T> {
  protected readonly logger: Logger;
  protected readonly failure: ThrottledWarning;
  private worker?: Worker<T>;
  private redis?: Redis;
  private readonly finished: Array<(outcome: JobOutcome) => void> = [];

  constructor(readonly queueName: string) {
    this.logger = new Logger(`Worker ${queueName}`);
    this.failure = new ThrottledWarning(`Worker ${queueName}`);
  }

  protected abstract process(job: Job<T>, token?: string): Promise<void>;

  /** Starts taking jobs; `onBack` runs whenever Redis answers again after the connection was lost. */
  start(connection: QueueConnection, concurrency: number, onBack?: () => void): void {
    const redis = (this.redis = workerRedis(connection));
    redis.on('error', (error) => this.failure.warn(`worker ${this.queueName}: ${error.message}`));
    if (onBack) onReconnect(redis, onBack);
    this.worker = new Worker<T>(this.queueName, (job, token) => this.process(job, token), { connection: redis, prefix: bullPrefix(connection), concurrency });
    this.worker.on('error', (error) => this.failure.warn(`worker ${this.queueName}: ${error.message}`));
    this.worker.on('failed', (job, error) => {
      if (error instanceof DelayedError) return;
      const requestId = requestIdOf(job);
      this.logger.warn(`job ${job?.id}${requestId ? ` (request ${requestId})` : ''} failed: ${error.message}`);
      for (const listener of this.finished) listener('failed');
    });
    this.worker.on('completed', () => {
      for (const listener of this.finished) listener('completed');
    });
  }

  /** Calls `listener` with the outcome of every job this worker finishes (metrics count them). */
  onFinished(listener: (outcome: JobOutcome) => void): void {
    this.finished.push(listener);
  }

  get running(): boolean {
    return this.worker !== undefined;
  }

  async close(): Promise<void> {
    // Without Redis a graceful close would wait for it forever: nothing can be finished then anyway.
    if (this.redis && this.redis.status !== 'ready') this.redis.disconnect();
    await this.worker?.close(this.redis?.status !== 'ready');
    this.redis?.disconnect();
    this.worker = undefined;
  }
}
