import { Body, Get, Headers, HttpCode, Param, Post } from '@nestjs/common';
import { ApiHeader, ApiOperation } from '@nestjs/swagger';
import { GatewayApi } from '../common/api-version.guard';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { MessagesService, type SendResponse } from './messages.service';
import type { MessageView } from './messages.repository';

@GatewayApi('Messages')
export class MessagesController {
  constructor(private readonly messages: MessagesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Send a message of any kind, or mark one as read' })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: 'A retried request with the same key gets the first answer instead of sending twice.' })
  send(@CurrentPhone() phone: PhoneContext, @Body() body: unknown, @Headers('idempotency-key') key?: string): Promise<SendResponse | { success: true }> {
    return this.messages.post(phone, body, key);
  }

  @Get(':id')
  @ApiOperation({ summary: 'A sent message with its status history' })
  find(@CurrentPhone() phone: PhoneContext, @Param('id') id: string): Promise<MessageView> {
    return this.messages.find(phone, id);
  }
}
