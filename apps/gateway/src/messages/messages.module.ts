import { Module } from '@nestjs/common';
import { IdempotencyRepository } from './idempotency.repository';
import { MessagesController } from './messages.controller';
import { MessagesService } from './messages.service';
import { ThroughputLimiter } from './throughput.limiter';

@Module({ controllers: [MessagesController], providers: [MessagesService, IdempotencyRepository, ThroughputLimiter] })
export class MessagesModule {}
