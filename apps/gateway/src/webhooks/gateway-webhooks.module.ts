import { Global, Module } from '@nestjs/common';
import { SecretCipher } from '@app/secrets';
import { TargetPolicy } from '@app/webhooks';
import { GatewayConfig } from '../config/gateway.config';
import { WebhookRegistrationsRepository } from './webhook-registrations.repository';
import { WebhookRegistrationsService } from './webhook-registrations.service';
import { WebhooksController } from './webhooks.controller';

@Global()
@Module({
  controllers: [WebhooksController],
  providers: [
    { provide: SecretCipher, inject: [GatewayConfig], useFactory: (config: GatewayConfig) => new SecretCipher(config.ENCRYPTION_KEYS) },
    { provide: TargetPolicy, inject: [GatewayConfig], useFactory: (config: GatewayConfig) => new TargetPolicy(config.WEBHOOK_ALLOWED_TARGETS) },
    WebhookRegistrationsRepository,
    WebhookRegistrationsService,
  ],
  exports: [SecretCipher, WebhookRegistrationsRepository],
})
export class GatewayWebhooksModule {}
