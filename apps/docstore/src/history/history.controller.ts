import { Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { ApiPaginatedResponse, paginate, PageQueryDto, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { Request, Response } from 'express';
import { ApiDocumentPath } from '../address/document-path.decorator';
import { DocumentPathPipe, type DocumentAddress } from '../address/document-path.pipe';
import { expectedVersion, IF_MATCH, setDocumentEtag } from '../documents/document-etag';
import { DocumentDto } from '../documents/document.dto';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { HistoryEntryDto } from './history-entry.dto';
import { HistoryService } from './history.service';

@ApiTags('history')
@ApiBearerAuth()
@ApiErrors(401, 403, 404, 429)
@Controller('api/v1/client/:client/:environment/context/:context/type/:type/:key/history')
export class HistoryController {
  constructor(private readonly history: HistoryService) {}

  @Get()
  @RequireScopes(DocstoreScope.DocumentRead)
  @ApiDocumentPath('key')
  @ApiPaginatedResponse(HistoryEntryDto, 'One page of the versions, newest first.')
  async list(@Param(DocumentPathPipe) at: DocumentAddress, @Query() _query: PageQueryDto, @PageRequest() paging: Paging): Promise<Paginated<HistoryEntryDto>> {
    const { rows, total } = await this.history.list(at.scope, at.key, paging);
    return paginate(rows, total, paging);
  }

  @Post(':history_id/restore')
  @HttpCode(200)
  @RequireScopes(DocstoreScope.DocumentUpdate)
  @ApiDocumentPath('key', 'history_id')
  @ApiHeader(IF_MATCH)
  @ApiErrors(412)
  @ApiOkResponse({ type: DocumentDto, description: "The document with that entry's data, version + 1." })
  async restore(@Param(DocumentPathPipe) at: DocumentAddress, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<DocumentDto> {
    return setDocumentEtag(res, await this.history.restore(at.scope, at.key, at.historyId, expectedVersion(req)));
  }
}
