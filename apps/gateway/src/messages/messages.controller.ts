import { Body, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { IdempotencyKey } from '@app/server';
import { GatewayApi } from '../common/api-version.guard';
import { ApiCursorPage, CursorPageRequest, type CursorPage, type CursorPaging } from '../common/cursor-page';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { SEND_MESSAGE_BODY } from './message.dto';
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
  @ApiQuery({ name: 'status', required: false, description: 'e.g. accepted, sent, delivered, read, failed' })
  @ApiQuery({ name: 'recipient', required: false, description: 'The phone number the messages went to' })
  @ApiQuery({ name: 'since', required: false, description: 'Sent at or after: ISO 8601 or Unix seconds' })
  @ApiQuery({ name: 'until', required: false, description: 'Sent before: ISO 8601 or Unix seconds' })
  @ApiQuery({ name: 'phone_id', required: false, description: 'Another phone of the same account' })
  @ApiCursorPage()
  list(@CurrentPhone() phone: PhoneContext, @Query() query: Record<string, unknown>, @CursorPageRequest() paging: CursorPaging): Promise<CursorPage<MessageSummary>> {
    return this.messages.list(phone, query, paging);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A sent message with its status history' })
  @ApiErrors(404)
  find(@CurrentPhone() phone: PhoneContext, @Param('id') id: string): Promise<MessageView> {
    return this.messages.find(phone, id);
  }
}
