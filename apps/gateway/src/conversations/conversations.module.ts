import { Module } from '@nestjs/common';
import { GatewayWebhooksModule } from '../webhooks/gateway-webhooks.module';
import { ConversationInbox } from './conversation-inbox.service';
import { ConversationRules } from './conversation-rules.service';
import { ConversationsController } from './conversations.controller';
import { ConversationsRepository } from './conversations.repository';
import { ConversationsService } from './conversations.service';
import { OptOutsController } from './opt-outs.controller';
import { OptOutsRepository } from './opt-outs.repository';
import { OptOutsService } from './opt-outs.service';
import { SandboxInboundController } from './sandbox-inbound.controller';
import { SandboxInboundService } from './sandbox-inbound.service';

/**
 * Conversations with contacts: customers' messages kept per phone and contact, the service window
 * and opt-outs every send is checked against (ConversationRules), and the sandbox's customer.
 */
@Module({
  imports: [GatewayWebhooksModule],
  controllers: [ConversationsController, OptOutsController, SandboxInboundController],
  providers: [ConversationsRepository, OptOutsRepository, ConversationInbox, ConversationRules, ConversationsService, OptOutsService, SandboxInboundService],
  exports: [ConversationRules, ConversationInbox],
})
export class ConversationsModule {}
