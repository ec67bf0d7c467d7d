import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import { GatewayApi } from '../common/api-version.guard';
import type { PhoneContext } from '../network/chat-provider';
import { StatsQuery } from './message-query.dto';
import { MessageStats } from './message-answers.dto';
import { MessagesService } from './messages.service';

@GatewayApi('Stats')
export class MessageStatsController {
  constructor(private readonly messages: MessagesService) {}

  @Get()
  @ApiOperation({ summary: "The phone's messages by hour of sending (UTC) and current status, for the last 24 hours or 7 days" })
  @ApiOkResponse({ type: MessageStats })
  stats(@CurrentPhone() phone: PhoneContext, @Query() query: StatsQuery): Promise<MessageStats> {
    return this.messages.stats(phone, query);
  }
}
