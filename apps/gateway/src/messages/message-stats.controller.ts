import { Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery } from '@nestjs/swagger';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import { GatewayApi } from '../common/api-version.guard';
import type { PhoneContext } from '../network/chat-provider';
import { STATS_WINDOWS } from './message-query.validator';
import { MessagesService, type MessageStats } from './messages.service';

@GatewayApi('Stats')
export class MessageStatsController {
  constructor(private readonly messages: MessagesService) {}

  @Get()
  @ApiOperation({ summary: "The phone's messages by hour of sending (UTC) and current status, for the last 24 hours or 7 days" })
  @ApiQuery({ name: 'window', required: false, enum: Object.keys(STATS_WINDOWS) })
  @ApiQuery({ name: 'phone_id', required: false, description: 'Another phone of the same account' })
  stats(@CurrentPhone() phone: PhoneContext, @Query() query: Record<string, unknown>): Promise<MessageStats> {
    return this.messages.stats(phone, query);
  }
}
