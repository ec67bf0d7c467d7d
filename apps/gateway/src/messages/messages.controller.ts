import { Body, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, getSchemaPath } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { IdempotencyKey } from '@app/server';
import { GatewayApi } from '../common/api-version.guard';
import type { PageLocation } from '@app/pagination';
import { PageAddress, pagingOf, type CursorPage } from '../common/cursor-page';
import { SuccessAnswer } from '../common/cursor-page.dto';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { SEND_MESSAGE_DOCS, SEND_MESSAGE_MODELS, SendMessageBody } from './message.dto';
import { MessageListQuery } from './message-query.dto';
import { MessagesPage, MessageView, SendMessageAnswer, type MessageSummary } from './message-answers.dto';
import { MessagesService } from './messages.service';

@GatewayApi('Messages')
@ApiExtraModels(SendMessageAnswer, SuccessAnswer, ...SEND_MESSAGE_MODELS)
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a message of any kind, or mark one as read' })
  @ApiBody(SEND_MESSAGE_DOCS)
  @ApiOkResponse({
    description: 'The message sent, or `{success: true}` for a read mark.',
    schema: { oneOf: [{ $ref: getSchemaPath(SendMessageAnswer) }, { $ref: getSchemaPath(SuccessAnswer) }] },
  })
  @ApiErrors(409, 413, 415)
  send(@CurrentPhone() phone: PhoneContext, @Body() body: SendMessageBody, @IdempotencyKey() key?: string): Promise<SendMessageAnswer | SuccessAnswer> {
    return this.messages.post(phone, body, key);
  }

  @Get()
  @ApiOperation({ summary: "The phone's messages, newest first, with their current status" })
  @ApiOkResponse({ type: MessagesPage })
  list(@CurrentPhone() phone: PhoneContext, @Query() query: MessageListQuery, @PageAddress() location: PageLocation): Promise<CursorPage<MessageSummary>> {
    return this.messages.list(phone, query, pagingOf(query, location));
  }

  @Get(':id')
  @ApiOperation({ summary: 'A sent or scheduled message with its status history' })
  @ApiOkResponse({ type: MessageView })
  @ApiErrors(404)
  find(@CurrentPhone() phone: PhoneContext, @Param('id') id: string): Promise<MessageView> {
    return this.messages.find(phone, id);
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Cancel a scheduled message (one sent with `send_at`) while it is still scheduled' })
  @ApiOkResponse({ type: MessageView, description: 'The message, now `cancelled`; it is never sent.' })
  @ApiErrors(404, 409)
  cancel(@CurrentPhone() phone: PhoneContext, @Param('id') id: string): Promise<MessageView> {
    return this.messages.cancel(phone, id);
  }
}
