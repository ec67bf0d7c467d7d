import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { PushOpened, PushOpenedDto } from './push-open.dto';
import { PushService } from './push.service';

/**
 * Where the app reports that a push was opened. Public: the per-push open token in the payload
 * (an HMAC of the push id) is the credential, so the app carries no account secret.
 */
@ApiTags('push')
@Public()
@ApiErrors(400, 401, 404, 409, 415, 422, 429)
@Controller('api/pushm/opened')
export class PushOpensController {
  constructor(private readonly pushes: PushService) {}

  /** Records the open once: a repeat answers `counted: false`. */
  @Post()
  @HttpCode(200)
  @ApiOkResponse({ type: PushOpened })
  opened(@Body() body: PushOpenedDto): Promise<PushOpened> {
    return this.pushes.opened(body.push_id, body.open_token);
  }
}
