import { Worker, type Job } from 'bullmq';
import type { RedisClient } from '@app/redis';
import { Logger } from '@nestjs/common';
import { ThrottledWarning } from '@app/observability';
import { onReconnect, queueAddress, workerRedis, type QueueConnection } from './queue-connection';

export type { Job };

/** How a job ended in this worker. */
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
 * closes the connection.
 */
export abstract class QueueWorker<T> {
  protected readonly logger: Logger;
  protected readonly failure: ThrottledWarning;
  private worker?: Worker<T>;
  private redis?: RedisClient;
  private readonly finished: Array<(outcome: JobOutcome) => void> = [];

  constructor(readonly queueName: string) {
    this.logger = new Logger(`Worker ${queueName}`);
    this.failure = new ThrottledWarning(`Worker ${queueName}`);
  }

  protected abstract process(job: Job<T>): Promise<void>;

  /**
   * Starts taking jobs; `onBack` runs whenever Redis answers again after the connection was lost.
   * `lockMs` (BullMQ's lock duration and stalled-job check interval, default 30 s) bounds how long
   * the jobs of a worker that died stay with it before another worker takes them over.
   */
  start(connection: QueueConnection, concurrency: number, onBack?: () => void, lockMs?: number): void {
    const redis = (this.redis = workerRedis(connection));
    redis.on('error', (error) => this.failure.warn(`worker ${this.queueName}: ${error.message}`));
    if (onBack) onReconnect(redis, onBack);
    const address = queueAddress(connection, this.queueName);
    this.worker = new Worker<T>(address.name, (job) => this.process(job), {
      connection: redis,
      prefix: address.prefix,
      concurrency,
      ...(lockMs ? { lockDuration: lockMs, stalledInterval: lockMs } : {}),
    });
    this.worker.on('error', (error) => this.failure.warn(`worker ${this.queueName}: ${error.message}`));
    this.worker.on('failed', (job, error) => {
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
    // With Redis away, BullMQ's close would wait for a connection that may never come: close at once. A job
    // still running then is not recorded; its outbox rows stay queued and are taken up again (at least once).
    const away = this.redis !== undefined && this.redis.status !== 'ready';
    if (away) this.redis!.disconnect();
    await this.worker?.close(away);
    this.redis?.disconnect();
    this.worker = undefined;
  }
}
