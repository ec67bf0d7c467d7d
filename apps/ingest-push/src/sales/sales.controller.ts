import { Actor, type AuditActor } from '@app/audit';
import { Controller, Delete, Get, Header, HttpCode, Param, Post, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiAcceptedResponse, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import { ApiErrors } from '@app/errors';
import { AcceptCredentials, isUuid, StreamBody } from '@app/auth';
import type { Request } from 'express';
import { Readable } from 'node:stream';
import { salesFormat } from './sales-media-type';
import { IngestionNotFoundException, InvalidIngestionIdException } from './sales.exception';
import { HourlyWindowQueryDto } from '../common/hourly-window-query.dto';
import { IngestionListQueryDto, IngestionPage, IngestionStats, IngestionSummary, type IngestionListItem } from './ingestion.dto';
import { SalesService } from './sales.service';
import { salesCaller } from './sales-caller';
import { SALES_FILE_BODY, SalesUploadQueryDto } from './sales-upload.dto';
import { salesContentEncoding } from './sales-content-encoding';
import type { ErrorBudget } from './sales-copy.transform';

@ApiTags('sales')
@ApiSecurity('apiKey')
@AcceptCredentials('salesApiKey')
@ApiErrors(401, 429)
@Controller('DataInserterSales/api/sales')
export class SalesController {
  constructor(private readonly sales: SalesService) {}

  /** Streams a CSV, JSON or NDJSON Sale file (gzip or deflate too) into the sales table; 201 with the ingestion's summary. */
  @Post()
  @HttpCode(201)
  // The handler reads the raw stream (no JSON parser in front); the service bounds it (INGEST_MAX_BYTES).
  @StreamBody()
  @ApiOperation({ requestBody: SALES_FILE_BODY })
  @ApiErrors(400, 408, 409, 413, 415, 422, 503)
  @ApiHeader({ name: 'X-Ingestion-Id', required: false, description: 'A UUID the client chooses as the ingestion id (409 when it is taken).' })
  @ApiHeader({ name: 'Content-Encoding', required: false, description: 'gzip or deflate: the body is decompressed as it arrives; anything else is 415.' })
  @ApiCreatedResponse({ type: IngestionSummary, description: 'The whole file is stored (its refused records listed in `errors`).' })
  upload(@Req() req: Request, @Query() query: SalesUploadQueryDto): Promise<IngestionSummary> {
    const format = salesFormat(req.headers['content-type']);
    const encoding = salesContentEncoding(req.headers['content-encoding']);
    // The body may still be arriving when the answer is ready (413, 400, 408): configureApp lets the client read it.
    return this.sales.ingest(salesCaller(req), { format, body: req, id: ingestionIdHeader(req), encoding, budget: errorBudget(query) });
  }

  /** The API key's account's ingestions, newest first (`status` filters), each as GET …/ingestions/{id} without `errors`. */
  @Get('ingestions')
  @ApiErrors(422)
  @ApiOkResponse({ type: IngestionPage })
  async list(@Req() req: Request, @Query() query: IngestionListQueryDto, @PageRequest() paging: Paging): Promise<Paginated<IngestionListItem>> {
    const { rows, total } = await this.sales.list(salesCaller(req).accountId, query, paging);
    return paginate(rows, total, paging);
  }

  /** Rows inserted, updated and rejected by the account's completed ingestions per UTC hour (by start), last 24 hours or 7 days. */
  @Get('stats')
  @ApiErrors(422)
  @ApiOkResponse({ type: IngestionStats })
  stats(@Req() req: Request, @Query() query: HourlyWindowQueryDto): Promise<IngestionStats> {
    return this.sales.stats(salesCaller(req).accountId, query);
  }

  /** The ingestion's summary, also while it runs (with its `stage`) or after it failed. */
  @Get('ingestions/:id')
  @ApiErrors(404)
  @ApiOkResponse({ type: IngestionSummary })
  ingestion(@Req() req: Request, @Param('id') id: string): Promise<IngestionSummary> {
    if (!isUuid(id)) throw new IngestionNotFoundException();
    return this.sales.summary(salesCaller(req).accountId, id);
  }

  /** Cancels a running ingestion, on whichever instance runs it: 202, and it ends `cancelled`; 409 when it already ended. */
  @Delete('ingestions/:id')
  @HttpCode(202)
  @ApiErrors(404, 409)
  @ApiAcceptedResponse({ type: IngestionSummary, description: 'The summary as the cancel found it (still running, or already cancelled).' })
  cancel(@Req() req: Request, @Param('id') id: string, @Actor() actor: AuditActor): Promise<IngestionSummary> {
    if (!isUuid(id)) throw new IngestionNotFoundException();
    return this.sales.cancel(salesCaller(req).accountId, id, actor);
  }

  /** Every stored row error of the ingestion as semicolon-separated CSV: line;record;field;reason. */
  @Get('ingestions/:id/errors')
  @ApiErrors(404)
  @Header('Content-Type', 'text/csv; charset=utf-8')
  @ApiProduces('text/csv')
  @ApiOkResponse({
    description: 'A header line `line;record;field;reason`, one line per stored problem, and a last line counting those not stored.',
    content: {
      'text/csv': { schema: { type: 'string', example: 'line;record;field;reason\n3;2;ProductPrice;must be a number with a decimal part, such as 10.0\n' } },
    },
  })
  async errors(@Req() req: Request, @Param('id') id: string): Promise<StreamableFile> {
    if (!isUuid(id)) throw new IngestionNotFoundException();
    const lines = this.sales.errorsCsv(salesCaller(req).accountId, id);
    // The first line is read here, so an unknown id is a 404 before anything is sent.
    const first = await lines.next();
    return new StreamableFile(
      Readable.from(
        (async function* () {
          if (!first.done) yield first.value;
          yield* lines;
        })(),
      ),
      { disposition: `attachment; filename="ingestion-${id}-errors.csv"` },
    );
  }
}

/** The client's own ingestion id (X-Ingestion-Id), or null when it sent none. */
function ingestionIdHeader(req: Request): string | null {
  const value = req.headers['x-ingestion-id'];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !isUuid(value)) throw new InvalidIngestionIdException();
  return value.toLowerCase();
}

/** The error budget the query asks for, or undefined (today's behaviour: every valid record kept). */
function errorBudget(query: SalesUploadQueryDto): ErrorBudget | undefined {
  if (query.max_error_ratio === undefined && query.max_errors === undefined) return undefined;
  return {
    ...(query.max_error_ratio === undefined ? {} : { maxErrorRatio: Number(query.max_error_ratio) }),
    ...(query.max_errors === undefined ? {} : { maxErrors: Number(query.max_errors) }),
  };
}
