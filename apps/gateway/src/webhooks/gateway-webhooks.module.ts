import { Module } from '@nestjs/common';
import { NetworkNotificationOutbox } from './network-notification.outbox';
import { WebhookRegistrationsService } from './webhook-registrations.service';
import { RuleSettings } from '../common/rule.decorator';
import { WebhooksController } from './webhooks.controller';

/** The spec's webhook registrations and the notification outbox, both on the shared delivery engine. */
@Module({
  controllers: [WebhooksController],
  providers: [WebhookRegistrationsService, NetworkNotificationOutbox, RuleSettings],
  exports: [NetworkNotificationOutbox],
})
export class GatewayWebhooksModule {}
