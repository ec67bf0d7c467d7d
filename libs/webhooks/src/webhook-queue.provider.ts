import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ThrottledWarning } from './throttled-warning';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { WebhookServiceConfig } from './webhook.config';
import { DELIVER_JOB, deliverJobId, queuePrefix, WEBHOOK_DELIVERY_QUEUE, type DeliverJobData } from './webhook-queue';

export const WEBHOOK_QUEUE = Symbol('WEBHOOK_QUEUE');

/**
 * The producer side of `webhook-delivery`. Its connection fails fast while Redis is
 * away (no offline queue), so the relay's transaction rolls back and the deliveries
 * stay in the outbox until Redis answers again.
 */
@Injectable()
export class WebhookQueue implements OnApplicationShutdown {
  private readonly failure = new ThrottledWarning('WebhookQueue');
  private readonly queue: Queue<DeliverJobData>;
  private readonly connection: Redis;

  constructor(@Inject(WebhookServiceConfig) config: WebhookServiceConfig) {
    const connection = (this.connection = new Redis(config.REDIS_URL, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 5000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    }));
    this.queue = new Queue<DeliverJobData>(WEBHOOK_DELIVERY_QUEUE, { connection, prefix: queuePrefix(config) });
    this.queue.on('error', (error) => this.failure.warn(`webhook queue: ${error.message}`));
    connection.on('error', (error) => this.failure.warn(`webhook queue: ${error.message}`));
  }

  async add(jobs: DeliverJobData[]): Promise<void> {
    await this.queue.addBulk(
      jobs.map((data) => ({
        name: DELIVER_JOB,
        data,
        opts: {
          jobId: deliverJobId(data),
          // The delivery log in PostgreSQL is the record; Redis keeps only work to do.
          removeOnComplete: true,
          removeOnFail: { count: 1000 },
          // Retries for the worker's own failures (e.g. PostgreSQL briefly away); receiver failures are scheduled by the outbox.
          attempts: 5,
          backoff: { type: 'exponential', delay: 1000 },
        },
      })),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    // BullMQ leaves a connection it was given open.
    this.connection.disconnect();
  }
}
