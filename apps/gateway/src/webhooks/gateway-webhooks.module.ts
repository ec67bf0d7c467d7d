import { Module, type OnModuleInit } from '@nestjs/common';
import { GatewayWebhooksConfig } from './gateway-webhooks.config';
import { NetworkNotificationOutbox } from './network-notification.outbox';
import { WebhookRegistrationsService } from './webhook-registrations.service';
import { RULE_SETTINGS, RuleSettings } from '../common/rule.decorator';
import { WebhooksController } from './webhooks.controller';

/** The spec's webhook registrations and the notification outbox, both on the shared delivery engine. */
@Module({
  controllers: [WebhooksController],
  providers: [WebhookRegistrationsService, NetworkNotificationOutbox, RuleSettings],
  exports: [NetworkNotificationOutbox],
})
export class GatewayWebhooksModule implements OnModuleInit {
  constructor(private readonly config: GatewayWebhooksConfig) {}

  /** The webhook types a registration may name (WEBHOOK_TYPES), for the registration DTO's rule. */
  onModuleInit(): void {
    RULE_SETTINGS.webhookTypes = this.config.webhookTypes;
  }
}
