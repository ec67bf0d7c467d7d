import { Actor, type AuditActor } from '@app/audit';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiBody, ApiExtraModels, ApiOkResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { AcceptCredentials, TooLargeHint } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { IdempotencyKey } from '@app/server';
import { paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import { PushConfig } from './push.config';
import { BULK_PUSH_EXAMPLES, BulkPushDto, BulkPushQueryDto } from './push.dto';
import { BatchDetail, BatchPage, BulkPushPreview, BulkPushResult, CancelledBatch, type BatchSummary } from './push-batch.dto';
import { PushService } from './push.service';
import { PushAccount } from './push-account.decorator';
import { PUSH_CREDENTIALS } from './push-token-verifier.service';

@ApiTags('push')
@ApiBearerAuth()
@AcceptCredentials(PUSH_CREDENTIALS)
@ApiErrors(401, 429)
@Controller('api/pushm/bulk')
export class PushController {
  constructor(private readonly pushes: PushService) {}

  /**
   * 202: the valid pushes are scheduled; `items` says, per request item, its id or its errors.
   * With `?dry_run=true`, 200: per item what would be sent (or its errors), nothing stored or sent.
   */
  @Post()
  @HttpCode(202)
  @ApiErrors(400, 413, 415, 422)
  @TooLargeHint(PushConfig, (config) => `A request carries at most ${config.PUSH_MAX_ITEMS} pushes (PUSH_MAX_ITEMS): split larger batches.`)
  @ApiBody({ type: BulkPushDto, examples: BULK_PUSH_EXAMPLES })
  @ApiAcceptedResponse({ type: BulkPushResult, description: 'The valid pushes are scheduled.' })
  @ApiExtraModels(BulkPushPreview)
  @ApiOkResponse({ description: 'With dry_run=true: what each item would send.', schema: { $ref: getSchemaPath(BulkPushPreview) } })
  submit(
    @PushAccount() account: string,
    @Body() body: BulkPushDto,
    @Res({ passthrough: true }) res: Response,
    @IdempotencyKey() key?: string,
    @Query() query: BulkPushQueryDto = {},
  ): Promise<BulkPushResult | BulkPushPreview> {
    if (query.dry_run !== 'true') return this.pushes.submit(account, body, key);
    res.status(200);
    return this.pushes.preview(account, body);
  }

  /** The account's batches, newest first, each with its counts by status (GET …/bulk/{batchId} without `items`). */
  @Get()
  @ApiErrors(422)
  @ApiOkResponse({ type: BatchPage })
  async list(@PushAccount() account: string, @PageRequest() paging: Paging): Promise<Paginated<BatchSummary>> {
    const { rows, total } = await this.pushes.batches(account, paging);
    return paginate(rows, total, paging);
  }

  /** Counts by status, and the batch's items page by page (`page`, `per_page`). */
  @Get(':batchId')
  @ApiErrors(404, 422)
  @ApiOkResponse({ type: BatchDetail })
  async get(@PushAccount() account: string, @Param('batchId') batchId: string, @PageRequest() paging: Paging): Promise<BatchDetail> {
    const { summary, rows, total } = await this.pushes.items(account, batchId, paging);
    return { ...summary, items: paginate(rows, total, paging) };
  }

  /** Cancels every push of the batch not yet handed to a provider. */
  @Delete(':batchId')
  @ApiErrors(404)
  @ApiOkResponse({ type: CancelledBatch })
  cancel(@PushAccount() account: string, @Param('batchId') batchId: string, @Actor() actor: AuditActor): Promise<CancelledBatch> {
    return this.pushes.cancel(account, batchId, actor);
  }
}
