import { ClientIdParam } from '../address/client-id.param';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { AuditLog, AuditQueryDto, AuditRecordDto } from '@app/audit';
import { RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { ApiPaginatedResponse, paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import { DocstoreScope } from '../tokens/docstore-scopes';

/** The client's audit log: read-only (records are written with the changes they describe). */
@ApiTags('audit')
@ApiBearerAuth()
@RequireScopes(DocstoreScope.TokenManage)
@ApiErrors(401, 403, 429)
@Controller('api/v1/client/:client/audit')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get()
  @ApiErrors(422)
  @ApiPaginatedResponse(AuditRecordDto, 'One page of the audit records, newest first.')
  async list(@ClientIdParam() client: string, @Query() query: AuditQueryDto, @PageRequest() paging: Paging): Promise<Paginated<AuditRecordDto>> {
    const { rows, total } = await this.audit.list(client, query, paging.perPage, paging.offset);
    return paginate(rows, total, paging);
  }
}
