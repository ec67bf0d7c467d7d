import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import { paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { AttemptView, DeliveryView } from '@app/webhooks';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { CreateWebhookDto, UpdateWebhookDto } from './webhook.dto';
import { DocstoreWebhooksService, type WebhookView } from './webhooks.service';

@ApiTags('webhooks')
@ApiBearerAuth()
@RequireScopes(DocstoreScope.WebhookManage)
@Controller('api/v1/client/:client/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: DocstoreWebhooksService) {}

  @Get()
  async list(@Param('client') client: string, @PageRequest() paging: Paging): Promise<Paginated<WebhookView>> {
    const { rows, total } = await this.webhooks.list(client, paging);
    return paginate(rows, total, paging);
  }

  /** The answer carries `secret`, shown only here and on rotation. */
  @Post()
  create(@Param('client') client: string, @Body() body: CreateWebhookDto) {
    return this.webhooks.create(client, body);
  }

  @Get(':webhookId')
  get(@Param('client') client: string, @Param('webhookId') id: string): Promise<WebhookView> {
    return this.webhooks.get(client, id);
  }

  @Put(':webhookId')
  update(@Param('client') client: string, @Param('webhookId') id: string, @Body() body: UpdateWebhookDto): Promise<WebhookView> {
    return this.webhooks.update(client, id, body);
  }

  @Delete(':webhookId')
  @HttpCode(204)
  async delete(@Param('client') client: string, @Param('webhookId') id: string): Promise<void> {
    await this.webhooks.delete(client, id);
  }

  @Post(':webhookId/rotate-secret')
  @HttpCode(200)
  rotateSecret(@Param('client') client: string, @Param('webhookId') id: string) {
    return this.webhooks.rotateSecret(client, id);
  }

  @Get(':webhookId/deliveries')
  async deliveries(@Param('client') client: string, @Param('webhookId') id: string, @PageRequest() paging: Paging): Promise<Paginated<DeliveryView>> {
    const { rows, total } = await this.webhooks.deliveries(client, id, paging);
    return paginate(rows, total, paging);
  }

  /** Every attempt of the delivery, oldest first. */
  @Get(':webhookId/deliveries/:deliveryId/attempts')
  async attempts(
    @Param('client') client: string, @Param('webhookId') id: string, @Param('deliveryId') deliveryId: string, @PageRequest() paging: Paging,
  ): Promise<Paginated<AttemptView>> {
    const { rows, total } = await this.webhooks.attempts(client, id, deliveryId, paging);
    return paginate(rows, total, paging);
  }

  @Post(':webhookId/deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  redeliver(@Param('client') client: string, @Param('webhookId') id: string, @Param('deliveryId') deliveryId: string): Promise<DeliveryView> {
    return this.webhooks.redeliver(client, id, deliveryId);
  }
}
