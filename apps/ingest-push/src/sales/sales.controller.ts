import { Controller, Get, Header, HttpCode, Param, Post, Req, StreamableFile } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { AcceptCredentials, isUuid, StreamBody } from '@app/auth';
import type { Request } from 'express';
import { Readable } from 'node:stream';
import { salesFormat } from './sales-media-type';
import { IngestionNotFoundException } from './sales.exception';
import { SalesService, type IngestionSummary } from './sales.service';
import { salesCaller } from './sales-caller';
import { SALES_FILE_BODY } from './sales-upload.dto';

@ApiTags('sales')
@ApiSecurity('apiKey')
@AcceptCredentials('salesApiKey')
@ApiErrors(401, 429)
@Controller('DataInserterSales/api/sales')
export class SalesController {
  constructor(private readonly sales: SalesService) {}

  /** Streams a CSV or JSON Sale file into the sales table; 201 with the ingestion's summary. */
  @Post()
  @HttpCode(201)
  // The handler reads the raw stream (no JSON parser in front); the service bounds it (INGEST_MAX_BYTES).
  @StreamBody()
  @ApiConsumes('application/json', 'application/csv', 'text/csv')
  @ApiBody(SALES_FILE_BODY)
  @ApiErrors(400, 408, 413, 415, 503)
  upload(@Req() req: Request): Promise<IngestionSummary> {
    const format = salesFormat(req.headers['content-type']);
    // The body may still be arriving when the answer is ready (413, 400, 408): configureApp lets the client read it.
    return this.sales.ingest(salesCaller(req), format, req);
  }

  @Get('ingestions/:id')
  @ApiErrors(404)
  ingestion(@Req() req: Request, @Param('id') id: string): Promise<IngestionSummary> {
    if (!isUuid(id)) throw new IngestionNotFoundException();
    return this.sales.summary(salesCaller(req).accountId, id);
  }

  /** Every row error of the ingestion as semicolon-separated CSV: line;record;field;reason. */
  @Get('ingestions/:id/errors')
  @ApiErrors(404)
  @Header('Content-Type', 'text/csv; charset=utf-8')
  async errors(@Req() req: Request, @Param('id') id: string): Promise<StreamableFile> {
    if (!isUuid(id)) throw new IngestionNotFoundException();
    const lines = this.sales.errorsCsv(salesCaller(req).accountId, id);
    // The first line is read here, so an unknown id is a 404 before anything is sent.
    const first = await lines.next();
    return new StreamableFile(Readable.from((async function* () {
      if (!first.done) yield first.value;
      yield* lines;
    })()), { disposition: `attachment; filename="ingestion-${id}-errors.csv"` });
  }
}
