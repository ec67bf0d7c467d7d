import { DelayedError, Worker, type Job } from 'bullmq';
import type Redis from 'ioredis';
import { Logger } from '@nestjs/common';
import { bullPrefix, onReconnect, workerRedis, type QueueConnection } from './queue-connection';
import { ThrottledWarning } from './throttled-warning';

export { DelayedError, type Job };

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
      if (!(error instanceof DelayedError)) this.logger.warn(`job ${job?.id} failed: ${error.message}`);
    });
  }

  get running(): boolean {
    return this.worker !== undefined;
  }

  async close(): Promise<void> {
    await this.worker?.close();
    this.redis?.disconnect();
    this.worker = undefined;
  }
}
