import { Actor, type AuditActor } from '@app/audit';
import { Body, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, IntersectionType } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import type { AttemptView, DeliveryView } from '@app/webhooks';
import { CurrentPhone } from '../accounts/current-phone.decorator';
import { GatewayApi } from '../common/api-version.guard';
import type { PageLocation } from '@app/pagination';
import { PageAddress, pagingOf, type CursorPage } from '../common/cursor-page';
import { OffsetPageQuery } from '../common/cursor-page.dto';
import { PhoneQuery } from '../common/phone-query.dto';
import type { PhoneContext } from '../network/chat-provider';
import { CreateWebhookBody, UpdateWebhookBody } from './webhook-registration.dto';
import { WebhookAttemptsPage, WebhookCreated, WebhookDeliveriesPage, WebhookDelivery, WebhookList, WebhookUpdated } from './webhook-answers.dto';
import { WebhookRegistrationsService } from './webhook-registrations.service';

/** A page of a webhook's delivery log, for the key's phone or `phone_id`'s. */
class DeliveryListQuery extends IntersectionType(OffsetPageQuery, PhoneQuery) {}

@GatewayApi('Webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhookRegistrationsService) {}

  @Post()
  @ApiOperation({ summary: 'Register a webhook' })
  @ApiCreatedResponse({ type: WebhookCreated })
  @ApiBody({
    type: CreateWebhookBody,
    examples: {
      messages: {
        summary: 'Message events',
        value: { types: ['messages'], endpoint: 'https://hooks.example.com/gateway', headers: { 'X-Source': 'gateway' } },
      },
    },
  })
  @ApiErrors(403, 409, 413, 415)
  create(
    @CurrentPhone() phone: PhoneContext,
    @Body() body: CreateWebhookBody,
    @Query() query: PhoneQuery,
    @Actor() actor: AuditActor,
  ): Promise<WebhookCreated> {
    return this.webhooks.create(phone, query.phone_id, body, actor);
  }

  @Get()
  @ApiOperation({ summary: "The key's phone's webhooks" })
  @ApiOkResponse({ type: WebhookList })
  list(@CurrentPhone() phone: PhoneContext): Promise<WebhookList> {
    return this.webhooks.list(phone);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a webhook' })
  @ApiOkResponse({ type: WebhookUpdated })
  @ApiBody({ type: UpdateWebhookBody, examples: { endpoint: { summary: 'Move the endpoint', value: { endpoint: 'https://hooks.example.com/gateway/v2' } } } })
  @ApiErrors(403, 404, 409, 413, 415)
  update(
    @CurrentPhone() phone: PhoneContext,
    @Param('id') id: string,
    @Body() body: UpdateWebhookBody,
    @Query() query: PhoneQuery,
    @Actor() actor: AuditActor,
  ): Promise<WebhookUpdated> {
    return this.webhooks.update(phone, query.phone_id, id, body, actor);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors(403, 404)
  delete(@CurrentPhone() phone: PhoneContext, @Param('id') id: string, @Query() query: PhoneQuery, @Actor() actor: AuditActor): Promise<void> {
    return this.webhooks.delete(phone, query.phone_id, id, actor);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "The webhook's deliveries, newest first: status, attempts, last answer and error" })
  @ApiOkResponse({ type: WebhookDeliveriesPage })
  deliveries(
    @CurrentPhone() phone: PhoneContext,
    @Param('id') id: string,
    @Query() query: DeliveryListQuery,
    @PageAddress() location: PageLocation,
  ): Promise<CursorPage<DeliveryView>> {
    return this.webhooks.deliveries(phone, query.phone_id, id, pagingOf(query, location));
  }

  @Get(':id/deliveries/:deliveryId/attempts')
  @ApiOperation({ summary: 'Every attempt of one delivery, oldest first: answer status, duration, error, the first 1 KB of the answer' })
  @ApiOkResponse({ type: WebhookAttemptsPage })
  attempts(
    @CurrentPhone() phone: PhoneContext,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
    @Query() query: DeliveryListQuery,
    @PageAddress() location: PageLocation,
  ): Promise<CursorPage<AttemptView>> {
    return this.webhooks.attempts(phone, query.phone_id, id, deliveryId, pagingOf(query, location));
  }

  @Post(':id/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a delivery again, whatever became of it (409 while it is queued)' })
  @ApiAcceptedResponse({ type: WebhookDelivery, description: 'The delivery, queued again.' })
  redeliver(
    @CurrentPhone() phone: PhoneContext,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
    @Query() query: PhoneQuery,
  ): Promise<DeliveryView> {
    return this.webhooks.redeliver(phone, query.phone_id, id, deliveryId);
  }
}
