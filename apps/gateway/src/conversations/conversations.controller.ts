import { Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import type { PageLocation } from '@app/pagination';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import { GatewayApi } from '../common/api-version.guard';
import { PageAddress, pagingOf, type CursorPage } from '../common/cursor-page';
import type { PhoneContext } from '../network/chat-provider';
import { ConversationMessagesPage, ConversationsPage, ConversationSummary, type ConversationMessage } from './conversation-answers.dto';
import { PhoneQuery } from '../common/phone-query.dto';
import { ConversationListQuery } from './conversation-query.dto';
import { ConversationsService } from './conversations.service';

@GatewayApi('Conversations')
export class ConversationsController {
  constructor(private readonly conversations: ConversationsService) {}

  @Get()
  @ApiOperation({ summary: "The phone's conversations, the latest message first: last message, unread count, service window" })
  @ApiOkResponse({ type: ConversationsPage })
  @ApiErrors(403)
  list(
    @CurrentPhone() phone: PhoneContext,
    @Query() query: ConversationListQuery,
    @PageAddress() location: PageLocation,
  ): Promise<CursorPage<ConversationSummary>> {
    return this.conversations.list(phone, query, pagingOf(query, location));
  }

  @Get(':wa_id')
  @ApiOperation({ summary: 'One conversation: last message, unread count, service window, opt-out' })
  @ApiOkResponse({ type: ConversationSummary })
  @ApiErrors(403, 404)
  find(@CurrentPhone() phone: PhoneContext, @Param('wa_id') waId: string, @Query() query: PhoneQuery): Promise<ConversationSummary> {
    return this.conversations.find(phone, waId, query);
  }

  @Get(':wa_id/Messages')
  @ApiOperation({ summary: "One contact's messages both ways, newest first, with their statuses" })
  @ApiOkResponse({ type: ConversationMessagesPage })
  @ApiErrors(403, 404)
  messages(
    @CurrentPhone() phone: PhoneContext,
    @Param('wa_id') waId: string,
    @Query() query: ConversationListQuery,
    @PageAddress() location: PageLocation,
  ): Promise<CursorPage<ConversationMessage>> {
    return this.conversations.messages(phone, waId, query, pagingOf(query, location));
  }
}
