import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';
import { MessageStatsController } from './message-stats.controller';
import { MessagesController } from './messages.controller';
import { MessagesRepository } from './messages.repository';
import { MessagesService } from './messages.service';
import { ThroughputLimiter } from './throughput.limiter';

@Module({
  controllers: [MessagesController, MessageStatsController],
  providers: [MessagesService, MessagesRepository, IdempotencyRepository, ThroughputLimiter],
  exports: [MessagesRepository],
})
export class MessagesModule {}
