import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { IdempotencyKey } from '@app/server';
import { GatewayApi } from '../common/api-version.guard';
import type { PageLocation } from '@app/pagination';
import { PageAddress, pagingOf, type CursorPage } from '../common/cursor-page';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { SEND_MESSAGE_BODY } from './message.dto';
import { MessageListQuery } from './message-query.dto';
import { MessagesService, type SendResponse } from './messages.service';
import type { MessageSummary, MessageView } from './messages.repository';

@GatewayApi('Messages')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a message of any kind, or mark one as read' })
  @ApiBody(SEND_MESSAGE_BODY)
  @ApiErrors(409, 413, 415)
  send(@CurrentPhone() phone: PhoneContext, @Body() body: unknown, @IdempotencyKey() key?: string): Promise<SendResponse | { success: true }> {
    return this.messages.post(phone, body, key);
  }

  @Get()
  @ApiOperation({ summary: "The phone's messages, newest first, with their current status" })
  list(@CurrentPhone() phone: PhoneContext, @Query() query: MessageListQuery, @PageAddress() location: PageLocation): Promise<CursorPage<MessageSummary>> {
    return this.messages.list(phone, query, pagingOf(query, location));
  }

  @Get(':id')
  @ApiOperation({ summary: 'A sent message with its status history' })
  @ApiErrors(404)
  find(@CurrentPhone() phone: PhoneContext, @Param('id') id: string): Promise<MessageView> {
    return this.messages.find(phone, id);
  }
}
