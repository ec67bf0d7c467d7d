import { Global, Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { MessagesModule } from '../messages/messages.module';
import { NetworkEvents } from '../network/network-events';
import { TemplatesModule } from '../templates/templates.module';
import { GatewayWebhooksModule } from '../webhooks/gateway-webhooks.module';
import { InboundNotificationsController } from './inbound-notifications.controller';
import { InboundNotificationsService } from './inbound-notifications.service';
import { InboundRepository } from './inbound.repository';
import { NotificationsService } from './notifications.service';

/**
 * Where the network's reports enter: its notification endpoint (cloud) and NetworkEvents
 * (the sandbox, in process). Each change is recorded once and passed on to webhooks.
 */
@Global()
@Module({
  imports: [ConversationsModule, MessagesModule, TemplatesModule, GatewayWebhooksModule],
  controllers: [InboundNotificationsController],
  providers: [NotificationsService, InboundNotificationsService, InboundRepository, { provide: NetworkEvents, useExisting: NotificationsService }],
  exports: [NetworkEvents],
})
export class NotificationsModule {}
