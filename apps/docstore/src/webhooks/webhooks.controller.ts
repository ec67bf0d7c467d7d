import { ClientIdParam } from '../address/client-id.param';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '@app/audit';
import { RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { ApiPaginatedResponse, paginate, PageQueryDto, PageRequest, type Paginated, type Paging } from '@app/pagination';
import { DocstoreScope } from '../tokens/docstore-scopes';
import {
  AttemptDto,
  CREATE_WEBHOOK_EXAMPLES,
  CreatedWebhookDto,
  CreateWebhookDto,
  DeliveryDto,
  RotatedWebhookDto,
  UPDATE_WEBHOOK_EXAMPLES,
  UpdateWebhookDto,
  WebhookDto,
} from './webhook.dto';
import { DocstoreWebhooksService } from './webhooks.service';

@ApiTags('webhooks')
@ApiBearerAuth()
@RequireScopes(DocstoreScope.WebhookManage)
@ApiErrors(401, 403, 429)
@Controller('api/v1/client/:client/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: DocstoreWebhooksService) {}

  @Get()
  @ApiErrors(422)
  @ApiPaginatedResponse(WebhookDto)
  async list(@ClientIdParam() client: string, @Query() _query: PageQueryDto, @PageRequest() paging: Paging): Promise<Paginated<WebhookDto>> {
    const { rows, total } = await this.webhooks.list(client, paging);
    return paginate(rows, total, paging);
  }

  /** The answer carries `secret`, shown only here and on rotation. */
  @Post()
  @ApiErrors(400, 409, 413, 415, 422)
  @ApiBody({ type: CreateWebhookDto, examples: CREATE_WEBHOOK_EXAMPLES })
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  create(@ClientIdParam() client: string, @Body() body: CreateWebhookDto, @Actor() actor: AuditActor): Promise<CreatedWebhookDto> {
    return this.webhooks.create(client, body, actor);
  }

  @Get(':webhookId')
  @ApiErrors(404)
  @ApiOkResponse({ type: WebhookDto })
  get(@ClientIdParam() client: string, @Param('webhookId') id: string): Promise<WebhookDto> {
    return this.webhooks.get(client, id);
  }

  @Put(':webhookId')
  @ApiErrors(400, 404, 409, 413, 415, 422)
  @ApiBody({ type: UpdateWebhookDto, examples: UPDATE_WEBHOOK_EXAMPLES })
  @ApiOkResponse({ type: WebhookDto })
  update(@ClientIdParam() client: string, @Param('webhookId') id: string, @Body() body: UpdateWebhookDto, @Actor() actor: AuditActor): Promise<WebhookDto> {
    return this.webhooks.update(client, id, body, actor);
  }

  @Delete(':webhookId')
  @ApiErrors(404)
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Removed.' })
  async delete(@ClientIdParam() client: string, @Param('webhookId') id: string, @Actor() actor: AuditActor): Promise<void> {
    await this.webhooks.delete(client, id, actor);
  }

  @Post(':webhookId/rotate-secret')
  @ApiErrors(404)
  @HttpCode(200)
  @ApiOkResponse({ type: RotatedWebhookDto })
  rotateSecret(@ClientIdParam() client: string, @Param('webhookId') id: string, @Actor() actor: AuditActor): Promise<RotatedWebhookDto> {
    return this.webhooks.rotateSecret(client, id, actor);
  }

  @Get(':webhookId/deliveries')
  @ApiErrors(404, 422)
  @ApiPaginatedResponse(DeliveryDto, 'One page of the deliveries, newest first.')
  async deliveries(
    @ClientIdParam() client: string,
    @Param('webhookId') id: string,
    @Query() _query: PageQueryDto,
    @PageRequest() paging: Paging,
  ): Promise<Paginated<DeliveryDto>> {
    const { rows, total } = await this.webhooks.deliveries(client, id, paging);
    return paginate(rows, total, paging);
  }

  /** Every attempt of the delivery, oldest first. */
  @Get(':webhookId/deliveries/:deliveryId/attempts')
  @ApiErrors(404, 422)
  @ApiPaginatedResponse(AttemptDto, 'One page of the attempts, oldest first.')
  async attempts(
    @ClientIdParam() client: string,
    @Param('webhookId') id: string,
    @Param('deliveryId') deliveryId: string,
    @Query() _query: PageQueryDto,
    @PageRequest() paging: Paging,
  ): Promise<Paginated<AttemptDto>> {
    const { rows, total } = await this.webhooks.attempts(client, id, deliveryId, paging);
    return paginate(rows, total, paging);
  }

  @Post(':webhookId/deliveries/:deliveryId/redeliver')
  @ApiErrors(404, 409)
  @HttpCode(202)
  @ApiAcceptedResponse({ type: DeliveryDto, description: 'The delivery, queued again.' })
  redeliver(@ClientIdParam() client: string, @Param('webhookId') id: string, @Param('deliveryId') deliveryId: string): Promise<DeliveryDto> {
    return this.webhooks.redeliver(client, id, deliveryId);
  }
}
