import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { Request, Response } from 'express';
import { ApiDocumentPath } from '../address/document-path.decorator';
import { DocumentPathPipe, type DocumentAddress } from '../address/document-path.pipe';
import { expectedVersion, IF_MATCH, setDocumentEtag } from '../documents/document-etag';
import type { DocumentView } from '../documents/document.dto';
import { DocstoreScope } from '../tokens/docstore-scopes';
import type { HistoryEntryView } from './history.repository';
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
  async list(@Param(DocumentPathPipe) at: DocumentAddress, @PageRequest() paging: Paging): Promise<Paginated<HistoryEntryView>> {
    const { rows, total } = await this.history.list(at.scope, at.key, paging);
    return paginate(rows, total, paging);
  }

  @Post(':history_id/restore')
  @HttpCode(200)
  @RequireScopes(DocstoreScope.DocumentUpdate)
  @ApiDocumentPath('key', 'history_id')
  @ApiHeader(IF_MATCH)
  @ApiErrors(412)
  async restore(@Param(DocumentPathPipe) at: DocumentAddress, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<DocumentView> {
    return setDocumentEtag(res, await this.history.restore(at.scope, at.key, at.historyId, expectedVersion(req)));
  }
}
