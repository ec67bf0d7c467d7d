import { Global, Module, type DynamicModule } from '@nestjs/common';
import { SecretCipher } from '@app/secrets';
import { AttemptRecorder } from './webhook-attempt.recorder';
import { WebhookServiceConfig } from './webhook.config';
import { WEBHOOK_ENGINE_OPTIONS, type WebhookEngineOptions } from './webhook-engine.options';
import { WebhookEvents } from './webhook-events.service';
import { WebhookMaintenance } from './webhook-maintenance.service';
import { WEBHOOK_LANE, webhookLane } from './webhook-lane';
import { WebhookSubscriptions } from './webhook-subscriptions.service';
import { TargetPolicy } from './webhook-target';
import { WebhookAttemptsRepository } from './webhook-attempts.repository';
import { WebhookOutboxRepository } from './webhook-outbox.repository';
import { WebhookFailingMetrics } from './webhook-failing.metrics';
import { WebhookRegistrationsRepository } from './webhook-registrations.repository';
import { WebhookSecretsRepository } from './webhook-secrets.repository';
import { WebhookTables } from './webhook-tables';
import { WebhooksService } from './webhooks.service';

/**
 * The webhook engine: the outbox and its lane (relay, `webhook-delivery` queue and
 * processor, whose workers start unless WEBHOOK_WORKERS=off), the delivery and attempt logs, and
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
        WebhookTables,
        WebhookRegistrationsRepository,
        WebhookOutboxRepository,
        WebhookAttemptsRepository,
        WebhookSecretsRepository,
        WebhookSubscriptions,
        AttemptRecorder,
        WebhookFailingMetrics,
        ...webhookLane(),
        WebhookMaintenance,
        WebhooksService,
        WebhookEvents,
      ],
      exports: [SecretCipher, TargetPolicy, WebhooksService, WebhookEvents, WEBHOOK_LANE],
    };
  }
}
