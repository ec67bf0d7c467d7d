import { Body, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import type { AttemptView, DeliveryView } from '@app/webhooks';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import { GatewayApi } from '../common/api-version.guard';
import { ApiCursorPage, CursorPageRequest, type CursorPage, type CursorPaging } from '../common/cursor-page';
import type { PhoneContext } from '../network/chat-provider';
import { CREATE_WEBHOOK_BODY, UPDATE_WEBHOOK_BODY } from './webhook-registration.dto';
import { WebhookRegistrationsService, type RegistrationView } from './webhook-registrations.service';

@GatewayApi('Webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookRegistrationsService) {}

  @Post()
  @ApiOperation({ summary: 'Register a webhook' })
  @ApiQuery({ name: 'phone_id', required: false, description: 'Another phone of the same account' })
  @ApiBody(CREATE_WEBHOOK_BODY)
  @ApiErrors(403, 409, 413, 415)
  create(@CurrentPhone() phone: PhoneContext, @Body() body: unknown, @Query('phone_id') phoneId?: unknown): Promise<RegistrationView & { success: true }> {
    return this.webhooks.create(phone, phoneId, body);
  }

  @Get()
  @ApiOperation({ summary: "The key's phone's webhooks" })
  list(@CurrentPhone() phone: PhoneContext): Promise<{ webhooks: RegistrationView[]; success: true }> {
    return this.webhooks.list(phone);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a webhook' })
  @ApiQuery({ name: 'phone_id', required: false })
  @ApiBody(UPDATE_WEBHOOK_BODY)
  @ApiErrors(403, 404, 409, 413, 415)
  update(@CurrentPhone() phone: PhoneContext, @Param('id') id: string, @Body() body: unknown, @Query('phone_id') phoneId?: unknown): Promise<Omit<RegistrationView, 'types'> & { success: true }> {
    return this.webhooks.update(phone, phoneId, id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook' })
  @ApiQuery({ name: 'phone_id', required: false })
  @ApiErrors(403, 404)
  delete(@CurrentPhone() phone: PhoneContext, @Param('id') id: string, @Query('phone_id') phoneId?: unknown): Promise<void> {
    return this.webhooks.delete(phone, phoneId, id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "The webhook's deliveries, newest first: status, attempts, last answer and error" })
  @ApiQuery({ name: 'phone_id', required: false, description: 'Another phone of the same account' })
  @ApiCursorPage()
  deliveries(@CurrentPhone() phone: PhoneContext, @Param('id') id: string, @CursorPageRequest() paging: CursorPaging, @Query('phone_id') phoneId?: unknown): Promise<CursorPage<DeliveryView>> {
    return this.webhooks.deliveries(phone, phoneId, id, paging);
  }

  @Get(':id/deliveries/:deliveryId/attempts')
  @ApiOperation({ summary: 'Every attempt of one delivery, oldest first: answer status, duration, error, the first 1 KB of the answer' })
  @ApiQuery({ name: 'phone_id', required: false, description: 'Another phone of the same account' })
  @ApiCursorPage()
  attempts(
    @CurrentPhone() phone: PhoneContext, @Param('id') id: string, @Param('deliveryId') deliveryId: string, @CursorPageRequest() paging: CursorPaging, @Query('phone_id') phoneId?: unknown,
  ): Promise<CursorPage<AttemptView>> {
    return this.webhooks.attempts(phone, phoneId, id, deliveryId, paging);
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a delivery again, whatever became of it (409 while it is queued)' })
  @ApiQuery({ name: 'phone_id', required: false, description: 'Another phone of the same account' })
  redeliver(@CurrentPhone() phone: PhoneContext, @Param('id') id: string, @Param('deliveryId') deliveryId: string, @Query('phone_id') phoneId?: unknown): Promise<DeliveryView> {
    return this.webhooks.redeliver(phone, phoneId, id, deliveryId);
  }
}
