import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { QueueProducer } from '@app/queue';
import { RedisConfig } from '@app/redis';
import { WEBHOOK_DELIVERY_QUEUE, type DeliverJobData } from './webhook-queue';

/** The producer side of `webhook-delivery`, under the service's Redis prefix. */
@Injectable()
export class WebhookQueue extends QueueProducer<DeliverJobData> implements OnApplicationShutdown {
  constructor(redis: RedisConfig) {
    super(WEBHOOK_DELIVERY_QUEUE, { redisUrl: redis.REDIS_URL, redisPrefix: redis.REDIS_PREFIX });
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
