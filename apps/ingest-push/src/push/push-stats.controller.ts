import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AcceptCredentials } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { HourlyWindowQueryDto } from '../common/hourly-window-query.dto';
import { PushStats } from './push-stats.dto';
import { PushService } from './push.service';
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
  @ApiOkResponse({ type: PushStats })
  stats(@PushAccount() account: string, @Query() query: HourlyWindowQueryDto): Promise<PushStats> {
    return this.pushes.stats(account, query);
  }
}
