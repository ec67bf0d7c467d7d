import { Global, Module } from '@nestjs/common';
import { BaseServiceConfig } from '@app/config';
import { SecretCipher } from '@app/secrets';
import { OutboxRelay } from './outbox-relay.service';
import { AttemptRecorder } from './webhook-attempt.recorder';
import { WebhookServiceConfig } from './webhook.config';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WebhookEvents } from './webhook-events.service';
import { WebhookQueue } from './webhook-queue.provider';
import { WebhookSubscriptions } from './webhook-subscriptions.service';
import { TargetPolicy } from './webhook-target';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * The webhook engine: registration, the outbox relay, the `webhook-delivery` queue and
 * its processor (which starts unless WEBHOOK_WORKERS=off). The app's config class must
 * extend WebhookServiceConfig, and its migrations include `webhookMigrations`.
 */
@Global()
@Module({
  providers: [
    {
      provide: WebhookServiceConfig,
      inject: [BaseServiceConfig],
      useFactory: (config: BaseServiceConfig) => {
        if (!(config instanceof WebhookServiceConfig)) throw new Error('The app config class must extend WebhookServiceConfig.');
        return config;
      },
    },
    {
      provide: SecretCipher,
      inject: [WebhookServiceConfig],
      useFactory: (config: WebhookServiceConfig) => new SecretCipher(config.ENCRYPTION_KEYS),
    },
    {
      provide: TargetPolicy,
      inject: [WebhookServiceConfig],
      useFactory: (config: WebhookServiceConfig) => new TargetPolicy(config.WEBHOOK_ALLOWED_TARGETS),
    },
    WebhooksRepository,
    WebhookSubscriptions,
    WebhookQueue,
    OutboxRelay,
    AttemptRecorder,
    WebhookDeliveryProcessor,
    WebhooksService,
    WebhookEvents,
  ],
  exports: [WebhookServiceConfig, SecretCipher, WebhooksService, WebhookEvents, OutboxRelay],
})
export class WebhooksModule {}
