import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '@app/audit';
import { AcceptCredentials } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { PushSettings, PushSettingsDto } from './push-settings.dto';
import { PushSettingsService } from './push-settings.service';
import { PushAccount } from './push-account.decorator';
import { PUSH_CREDENTIALS } from './push-token-verifier.service';

@ApiTags('push')
@ApiBearerAuth()
@AcceptCredentials(PUSH_CREDENTIALS)
@ApiErrors(401, 429)
@Controller('api/pushm/settings')
export class PushSettingsController {
  constructor(private readonly settings: PushSettingsService) {}

  /** The account's frequency cap and quiet hours (nulls when not set). */
  @Get()
  @ApiOkResponse({ type: PushSettings })
  get(@PushAccount() account: string): Promise<PushSettings> {
    return this.settings.get(account);
  }

  /** Replaces them: quiet hours apply to batches sent from now on, the cap to every push sent from now on. */
  @Put()
  @ApiErrors(400, 415, 422)
  @ApiOkResponse({ type: PushSettings })
  put(@PushAccount() account: string, @Body() body: PushSettingsDto, @Actor() actor: AuditActor): Promise<PushSettings> {
    return this.settings.put(account, body, actor);
  }
}
