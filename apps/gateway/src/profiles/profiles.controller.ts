import { Body, Get, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery } from '@nestjs/swagger';
import { GatewayApi } from '../common/api-version.guard';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import type { PhoneContext } from '../network/chat-provider';
import { ProfilesService } from './profiles.service';

@GatewayApi('Profiles')
export class ProfilesController {
  constructor(private readonly profiles: ProfilesService) {}

  @Post()
  @ApiOperation({ summary: 'Update the business profile' })
  @ApiQuery({ name: 'phone_id', required: false, description: 'Another phone of the same account' })
  update(@CurrentPhone() phone: PhoneContext, @Body() body: unknown, @Query('phone_id') phoneId?: unknown): Promise<{ success: true }> {
    return this.profiles.update(phone, phoneId, body);
  }

  @Get()
  @ApiOperation({ summary: 'The business profile' })
  list(@CurrentPhone() phone: PhoneContext): Promise<{ data: Record<string, unknown>[] }> {
    return this.profiles.list(phone);
  }
}
