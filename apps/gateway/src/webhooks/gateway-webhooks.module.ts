import { Global, Module } from '@nestjs/common';
import { NotificationOutbox } from '../notifications/notification.outbox';
import { NetworkNotificationOutbox } from './network-notification.outbox';
import { WebhookRegistrationsService } from './webhook-registrations.service';
import { WebhooksController } from './webhooks.controller';

/** The spec's webhook registrations and the notification outbox, both on the shared delivery engine. */
@Global()
@Module({
  controllers: [WebhooksController],
  providers: [WebhookRegistrationsService, { provide: NotificationOutbox, useClass: NetworkNotificationOutbox }],
  exports: [NotificationOutbox],
})
export class GatewayWebhooksModule {}
