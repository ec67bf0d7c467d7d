import { Global, Module, type DynamicModule } from '@nestjs/common';
import { SecretCipher } from '@app/secrets';
import { AttemptRecorder } from './webhook-attempt.recorder';
import { WebhookServiceConfig } from './webhook.config';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import { WEBHOOK_ENGINE_OPTIONS, type WebhookEngineOptions } from './webhook-engine.options';
import { WebhookEvents } from './webhook-events.service';
import { WebhookMaintenance } from './webhook-maintenance.service';
import { WebhookQueue } from './webhook-queue.provider';
import { WebhookRelay } from './webhook-relay.service';
import { WebhookSubscriptions } from './webhook-subscriptions.service';
import { TargetPolicy } from './webhook-target';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * The webhook engine: the outbox, its relay, the `webhook-delivery` queue and its
 * processor (which starts unless WEBHOOK_WORKERS=off), the delivery and attempt logs, and
 * generic registration by owner. The service supplies its envelope, signer and http
 * policy; it lists WebhookServiceConfig among its settings and its migrations include
 * `webhookMigrations`. Registration's API shape is the service's own.
 */
@Global()
@Module({})
export class WebhooksModule {
  static forRoot(options: WebhookEngineOptions): DynamicModule {
    return {
      module: WebhooksModule,
      providers: [
        { provide: WEBHOOK_ENGINE_OPTIONS, useValue: options },
        {
          provide: SecretCipher,
          inject: [WebhookServiceConfig],
          useFactory: (config: WebhookServiceConfig) => new SecretCipher(config.ENCRYPTION_KEYS),
        },
        {
          provide: TargetPolicy,
          inject: [WebhookServiceConfig],
          useFactory: (config: WebhookServiceConfig) => new TargetPolicy(config.WEBHOOK_ALLOWED_TARGETS, options.allowHttpForAllowedTargets ?? false),
        },
        WebhooksRepository,
        WebhookSubscriptions,
        WebhookQueue,
        WebhookRelay,
        AttemptRecorder,
        WebhookDeliveryProcessor,
        WebhookMaintenance,
        WebhooksService,
        WebhookEvents,
      ],
      exports: [SecretCipher, TargetPolicy, WebhooksService, WebhookEvents, WebhookRelay],
    };
  }
}
