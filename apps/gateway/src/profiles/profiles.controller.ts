import { Body, Get, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { GatewayApi } from '../common/api-version.guard';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { UPDATE_PROFILE_BODY } from './profile.dto';
import { ProfilesService } from './profiles.service';

@GatewayApi('Profiles')
export class ProfilesController {
  constructor(private readonly profiles: ProfilesService) {}

  @Post()
  @ApiOperation({ summary: 'Update the business profile' })
  @ApiQuery({ name: 'phone_id', required: false, description: 'Another phone of the same account' })
  @ApiBody(UPDATE_PROFILE_BODY)
  @ApiErrors(403, 413, 415)
  update(@CurrentPhone() phone: PhoneContext, @Body() body: unknown, @Query('phone_id') phoneId?: unknown): Promise<{ success: true }> {
    return this.profiles.update(phone, phoneId, body);
  }

  @Get()
  @ApiOperation({ summary: 'The business profile' })
  list(@CurrentPhone() phone: PhoneContext): Promise<{ data: Record<string, unknown>[] }> {
    return this.profiles.list(phone);
  }
}
