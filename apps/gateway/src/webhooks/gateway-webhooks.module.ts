import { Global, Module } from '@nestjs/common';
import { SecretCipher } from '@app/secrets';
import { TargetPolicy, WebhookServiceConfig } from '@app/webhooks';
import { WebhookRegistrationsRepository } from './webhook-registrations.repository';
import { WebhookRegistrationsService } from './webhook-registrations.service';
import { WebhooksController } from './webhooks.controller';

@Global()
@Module({
  controllers: [WebhooksController],
  providers: [
    { provide: SecretCipher, inject: [WebhookServiceConfig], useFactory: (config: WebhookServiceConfig) => new SecretCipher(config.ENCRYPTION_KEYS) },
    { provide: TargetPolicy, inject: [WebhookServiceConfig], useFactory: (config: WebhookServiceConfig) => new TargetPolicy(config.WEBHOOK_ALLOWED_TARGETS) },
    WebhookRegistrationsRepository,
    WebhookRegistrationsService,
  ],
  exports: [SecretCipher, WebhookRegistrationsRepository],
})
export class GatewayWebhooksModule {}
