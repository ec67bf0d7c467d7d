import { ClientIdParam } from '../address/client-id.param';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { AttemptView, DeliveryView } from '@app/webhooks';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { CREATE_WEBHOOK_EXAMPLES, CreateWebhookDto, UPDATE_WEBHOOK_EXAMPLES, UpdateWebhookDto } from './webhook.dto';
import { DocstoreWebhooksService, type WebhookView } from './webhooks.service';

@ApiTags('webhooks')
@ApiBearerAuth()
@RequireScopes(DocstoreScope.WebhookManage)
@ApiErrors(401, 403, 429)
@Controller('api/v1/client/:client/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: DocstoreWebhooksService) {}

  @Get()
  @ApiErrors(422)
  async list(@ClientIdParam() client: string, @PageRequest() paging: Paging): Promise<Paginated<WebhookView>> {
    const { rows, total } = await this.webhooks.list(client, paging);
    return paginate(rows, total, paging);
  }

  /** The answer carries `secret`, shown only here and on rotation. */
  @Post()
  @ApiErrors(400, 409, 413, 415, 422)
  @ApiBody({ type: CreateWebhookDto, examples: CREATE_WEBHOOK_EXAMPLES })
  create(@ClientIdParam() client: string, @Body() body: CreateWebhookDto) {
    return this.webhooks.create(client, body);
  }

  @Get(':webhookId')
  @ApiErrors(404)
  get(@ClientIdParam() client: string, @Param('webhookId') id: string): Promise<WebhookView> {
    return this.webhooks.get(client, id);
  }

  @Put(':webhookId')
  @ApiErrors(400, 404, 409, 413, 415, 422)
  @ApiBody({ type: UpdateWebhookDto, examples: UPDATE_WEBHOOK_EXAMPLES })
  update(@ClientIdParam() client: string, @Param('webhookId') id: string, @Body() body: UpdateWebhookDto): Promise<WebhookView> {
    return this.webhooks.update(client, id, body);
  }

  @Delete(':webhookId')
  @ApiErrors(404)
  @HttpCode(204)
  async delete(@ClientIdParam() client: string, @Param('webhookId') id: string): Promise<void> {
    await this.webhooks.delete(client, id);
  }

  @Post(':webhookId/rotate-secret')
  @ApiErrors(404)
  @HttpCode(200)
  rotateSecret(@ClientIdParam() client: string, @Param('webhookId') id: string) {
    return this.webhooks.rotateSecret(client, id);
  }

  @Get(':webhookId/deliveries')
  @ApiErrors(404, 422)
  async deliveries(@ClientIdParam() client: string, @Param('webhookId') id: string, @PageRequest() paging: Paging): Promise<Paginated<DeliveryView>> {
    const { rows, total } = await this.webhooks.deliveries(client, id, paging);
    return paginate(rows, total, paging);
  }

  /** Every attempt of the delivery, oldest first. */
  @Get(':webhookId/deliveries/:deliveryId/attempts')
  @ApiErrors(404, 422)
  async attempts(
    @ClientIdParam() client: string, @Param('webhookId') id: string, @Param('deliveryId') deliveryId: string, @PageRequest() paging: Paging,
  ): Promise<Paginated<AttemptView>> {
    const { rows, total } = await this.webhooks.attempts(client, id, deliveryId, paging);
    return paginate(rows, total, paging);
  }

  @Post(':webhookId/deliveries/:deliveryId/redeliver')
  @ApiErrors(404, 409)
  @HttpCode(202)
  redeliver(@ClientIdParam() client: string, @Param('webhookId') id: string, @Param('deliveryId') deliveryId: string): Promise<DeliveryView> {
    return this.webhooks.redeliver(client, id, deliveryId);
  }
}
