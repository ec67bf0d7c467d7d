import { Actor, type AuditActor } from '@app/audit';
import { Controller, Delete, Get, Param, Query, Req, StreamableFile } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiParam, ApiProduces, ApiSecurity, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiErrors } from '@app/errors';
import { AcceptCredentials } from '@app/auth';
import type { Request } from 'express';
import { Readable } from 'node:stream';
import { CustomerData, CustomerErasure } from './customer-data.dto';
import { CustomerDataService } from './customer-data.service';
import { SaleLinePage, SaleLineQueryDto, SalesSummary, SalesSummaryQueryDto } from './sale-line.dto';
import { SaleLinesService } from './sale-lines.service';
import { salesCaller } from './sales-caller';
import { SALE_FIELD_NAMES } from './sale-fields';

const CPF_CNPJ = { name: 'cpf_cnpj', description: 'A CPF or CNPJ, any punctuation (matched by its digits).', example: '123.456.789-09' };

/** Reads of what was loaded: the sale lines (JSON page or CSV export), summaries, and a customer's data (LGPD). */
@ApiTags('sales')
@ApiSecurity('apiKey')
@AcceptCredentials('salesApiKey')
@ApiErrors(401, 429)
@Controller('DataInserterSales/api/sales')
export class SaleLinesController {
  constructor(
    private readonly lines: SaleLinesService,
    private readonly customers: CustomerDataService,
  ) {}

  /** The account's sale lines, newest OrderDate first: a JSON page, or with `Accept: text/csv` every matching line as the upload's CSV. */
  @Get()
  @ApiErrors(422)
  @ApiExtraModels(SaleLinePage)
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({
    description: 'JSON: a page and its `next_cursor`. CSV (`Accept: text/csv`): every matching line from `cursor` on, streamed, in the upload format.',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(SaleLinePage) } },
      'text/csv': { schema: { type: 'string', example: `${SALE_FIELD_NAMES.join(';')}\n` } },
    },
  })
  list(@Req() req: Request, @Query() query: SaleLineQueryDto): Promise<SaleLinePage> | StreamableFile {
    const accountId = salesCaller(req).accountId;
    if (req.accepts(['application/json', 'text/csv']) !== 'text/csv') return this.lines.page(accountId, query);
    return new StreamableFile(Readable.from(this.lines.csv(accountId, query)), {
      type: 'text/csv; charset=utf-8',
      disposition: 'attachment; filename="sales.csv"',
    });
  }

  /** Totals over a range, grouped by day, month, store, product, category, brand, state or payment. */
  @Get('summary')
  @ApiErrors(422)
  @ApiOkResponse({ type: SalesSummary })
  summary(@Req() req: Request, @Query() query: SalesSummaryQueryDto): Promise<SalesSummary> {
    return this.lines.summary(salesCaller(req).accountId, query);
  }

  /** Everything the account holds about the customer: lines with personal fields, row errors naming it, past erasures. */
  @Get('customers/:cpf_cnpj')
  @ApiParam(CPF_CNPJ)
  @ApiErrors(400)
  @ApiOkResponse({ type: CustomerData })
  customer(@Req() req: Request, @Param('cpf_cnpj') cpfCnpj: string): Promise<CustomerData> {
    return this.customers.find(salesCaller(req).accountId, cpfCnpj);
  }

  /** Erases the customer in one transaction: personal fields of every line (amounts stay), row errors naming it; recorded without them. */
  @Delete('customers/:cpf_cnpj')
  @ApiParam(CPF_CNPJ)
  @ApiErrors(400, 503)
  @ApiOkResponse({ type: CustomerErasure })
  erase(@Req() req: Request, @Param('cpf_cnpj') cpfCnpj: string, @Actor() actor: AuditActor): Promise<CustomerErasure> {
    return this.customers.erase(salesCaller(req), cpfCnpj, actor);
  }
}
