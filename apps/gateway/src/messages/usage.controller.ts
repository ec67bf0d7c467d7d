import { Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import { GatewayApi } from '../common/api-version.guard';
import type { PhoneContext } from '../network/chat-provider';
import { Usage } from './usage-answers.dto';
import { UsageQuery } from './usage-query.dto';
import { UsageService } from './usage.service';

@GatewayApi('Usage')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get()
  @ApiOperation({ summary: "The phone's messages and billable messages by day (UTC) and pricing category, with their cost from the price table" })
  @ApiOkResponse({ type: Usage })
  @ApiErrors(403)
  get(@CurrentPhone() phone: PhoneContext, @Query() query: UsageQuery): Promise<Usage> {
    return this.usage.usage(phone, query);
  }
}
