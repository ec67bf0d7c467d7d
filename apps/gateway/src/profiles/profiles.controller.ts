import { Actor, type AuditActor } from '@app/audit';
import { Body, Get, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { GatewayApi } from '../common/api-version.guard';
import { PhoneQuery } from '../common/phone-query.dto';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { SuccessAnswer } from '../common/cursor-page.dto';
import { ProfileList } from './profile-answers.dto';
import { UpdateProfileBody } from './profile.dto';
import { ProfilesService } from './profiles.service';

@GatewayApi('Profiles')
export class ProfilesController {
  constructor(private readonly profiles: ProfilesService) {}

  @Post()
  @ApiOperation({ summary: 'Update the business profile' })
  @ApiBody({
    type: UpdateProfileBody,
    examples: {
      shop: {
        summary: 'A shop',
        value: { messaging_product: 'whatsapp', about: 'Mugs and plates', vertical: 'RETAIL', email: 'hello@example.com', websites: ['https://example.com'] },
      },
    },
  })
  @ApiCreatedResponse({ type: SuccessAnswer })
  @ApiErrors(403, 413, 415)
  update(@CurrentPhone() phone: PhoneContext, @Body() body: UpdateProfileBody, @Query() query: PhoneQuery, @Actor() actor: AuditActor): Promise<SuccessAnswer> {
    return this.profiles.update(phone, query.phone_id, body, actor);
  }

  @Get()
  @ApiOperation({ summary: 'The business profile' })
  @ApiOkResponse({ type: ProfileList })
  list(@CurrentPhone() phone: PhoneContext): Promise<ProfileList> {
    return this.profiles.list(phone);
  }
}
