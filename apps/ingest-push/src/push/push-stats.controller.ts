import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AcceptCredentials } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { HOURLY_WINDOWS } from '@app/pagination';
import { PushService, type PushStats } from './push.service';
import { PushAccount } from './push-account.decorator';
import { PUSH_CREDENTIALS } from './push-token-verifier.service';

@ApiTags('push')
@ApiBearerAuth()
@AcceptCredentials(PUSH_CREDENTIALS)
@ApiErrors(401, 429)
@Controller('api/pushm/stats')
export class PushStatsController {
  constructor(private readonly pushes: PushService) {}

  /** The account's finished pushes (sent, failed, invalid token) per UTC hour of their end, by platform, last 24 hours or 7 days. */
  @Get()
  @ApiErrors(422)
  @ApiQuery({ name: 'window', required: false, enum: Object.keys(HOURLY_WINDOWS) })
  stats(@PushAccount() account: string, @Query() query: Record<string, unknown>): Promise<PushStats> {
    return this.pushes.stats(account, query);
  }
}
