import { Global, Module } from '@nestjs/common';
import { MessagesRepository } from '../messages/messages.repository';
import { TemplatesRepository } from '../templates/templates.repository';
import { InboundNotificationsController } from './inbound-notifications.controller';
import { InboundNotificationsService } from './inbound-notifications.service';
import { InboundRepository } from './inbound.repository';
import { NotificationsService } from './notifications.service';

/** What the network reports, recorded once and passed on to webhooks; and the network's own notification endpoint. */
@Global()
@Module({
  controllers: [InboundNotificationsController],
  providers: [NotificationsService, InboundNotificationsService, InboundRepository, MessagesRepository, TemplatesRepository],
  exports: [NotificationsService, MessagesRepository, TemplatesRepository],
})
export class NotificationsModule {}
