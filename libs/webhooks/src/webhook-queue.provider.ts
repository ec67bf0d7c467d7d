import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { QueueProducer } from '@app/queue';
import { WebhookServiceConfig } from './webhook.config';
import { WEBHOOK_DELIVERY_QUEUE, type DeliverJobData } from './webhook-queue';

/** The producer side of `webhook-delivery`, under the service's Redis prefix. */
@Injectable()
export class WebhookQueue extends QueueProducer<DeliverJobData> implements OnApplicationShutdown {
  constructor(config: WebhookServiceConfig) {
    super(WEBHOOK_DELIVERY_QUEUE, { redisUrl: config.REDIS_URL, redisPrefix: config.REDIS_PREFIX });
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
