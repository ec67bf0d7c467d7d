import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { AuditLog, AuditQueryDto, AuditRecordDto } from '@app/audit';
import { AcceptCredentials } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { ApiPaginatedResponse, paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { Request } from 'express';
import { PUSH_CREDENTIALS } from '../push/push-token-verifier.service';

/**
 * The account's audit log, read with either of its credentials (a sales API key in `apiKey`, or a push token as
 * Bearer): both act for the same account and see the same records. Read-only: records are written with their changes.
 */
@ApiTags('audit')
@ApiSecurity('apiKey')
@ApiBearerAuth()
@AcceptCredentials('salesApiKey', PUSH_CREDENTIALS)
@ApiErrors(401, 429)
@Controller('DataInserterSales/api/audit')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @ApiErrors(422)
  @ApiPaginatedResponse(AuditRecordDto, 'One page of the audit records, newest first.')
  async list(@Req() req: Request, @Query() query: AuditQueryDto, @PageRequest() paging: Paging): Promise<Paginated<AuditRecordDto>> {
    const { rows, total } = await this.audit.list(req.principal!.ownerId, query, paging.perPage, paging.offset);
    return paginate(rows, total, paging);
  }
}
