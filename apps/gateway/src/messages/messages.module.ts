import { Module } from '@nestjs/common';
import { ConversationsModule } from '../conversations/conversations.module';
import { IdempotencyRepository } from './idempotency.repository';
import { MessageStatsController } from './message-stats.controller';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';
import { ScheduledMessagesRepository } from './scheduled-messages.repository';
import { ScheduledMessagesService } from './scheduled-messages.service';
import { scheduledSendLane } from './scheduled-send.lane';
import { ThroughputLimiter } from './throughput.limiter';
import { UsageController } from './usage.controller';
import { UsageService } from './usage.service';

@Module({
  imports: [ConversationsModule],
  controllers: [MessagesController, MessageStatsController, UsageController],
  providers: [
    MessagesService,
    MessagesRepository,
    IdempotencyRepository,
    ThroughputLimiter,
    UsageService,
    ScheduledMessagesRepository,
    ScheduledMessagesService,
    ...scheduledSendLane(),
  ],
  exports: [MessagesRepository],
})
export class MessagesModule {}
