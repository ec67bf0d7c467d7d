import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import { ValidationFailedException, type FieldErrors } from '@app/errors';
import { paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { Request, Response } from 'express';
import { DocumentPathPipe, type DocumentAddress } from '../address/document-path.pipe';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { expectedVersion, notModified, setDocumentEtag } from './document-etag';
import { parseBoolean, parseListQuery } from './document-query';
import { BulkBodyDto, DocumentBodyDto, type DocumentView } from './document.dto';
import { DocumentsService } from './documents.service';

const IF_MATCH = { name: 'If-Match', required: false, description: 'Version the document must be at ("3"); otherwise 412.' };

@ApiTags('documents')
@ApiBearerAuth()
@Controller('api/v1/client/:client/:environment/context/:context/type/:type')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Get()
  @RequireScopes(DocstoreScope.DocumentRead)
  @ApiQuery({ name: 'filter[field]', required: false, description: 'Also _gt, _gte, _lt, _lte, _neq, _like suffixes; nested fields with dots.' })
  @ApiQuery({ name: 'sort', required: false, description: 'field,-field (data fields, or _key, _version, _created_at, _updated_at).' })
  @ApiQuery({ name: 'deleted', required: false, type: Boolean })
  async list(@Param(DocumentPathPipe) at: DocumentAddress, @Query() query: Record<string, unknown>, @PageRequest() paging: Paging): Promise<Paginated<DocumentView>> {
    const { rows, total } = await this.documents.list(at.scope, parseListQuery(query), paging);
    return paginate(rows, total, paging);
  }

  @Post('bulk')
  @HttpCode(200)
  @RequireScopes(DocstoreScope.DocumentCreate, DocstoreScope.DocumentUpdate)
  bulk(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: BulkBodyDto): Promise<DocumentView[]> {
    return this.documents.bulk(at.scope, body.documents);
  }

  @Post(':key')
  @RequireScopes(DocstoreScope.DocumentCreate)
  async create(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: DocumentBodyDto, @Res({ passthrough: true }) res: Response): Promise<DocumentView> {
    return setDocumentEtag(res, await this.documents.create(at.scope, at.key, body));
  }

  @Get(':key')
  @RequireScopes(DocstoreScope.DocumentRead)
  @ApiQuery({ name: 'deleted', required: false, type: Boolean })
  async get(@Param(DocumentPathPipe) at: DocumentAddress, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<DocumentView | void> {
    const errors: FieldErrors = {};
    const includeDeleted = parseBoolean(req.query.deleted, 'deleted', errors);
    if (errors.deleted) throw new ValidationFailedException(errors);
    const document = setDocumentEtag(res, await this.documents.get(at.scope, at.key, includeDeleted));
    if (notModified(req, document)) {
      res.status(304);
      return;
    }
    return document;
  }

  @Put(':key')
  @RequireScopes(DocstoreScope.DocumentUpdate)
  @ApiHeader(IF_MATCH)
  async update(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: DocumentBodyDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<DocumentView> {
    return setDocumentEtag(res, await this.documents.update(at.scope, at.key, body, expectedVersion(req)));
  }

  @Delete(':key')
  @RequireScopes(DocstoreScope.DocumentDelete)
  @ApiHeader(IF_MATCH)
  async delete(@Param(DocumentPathPipe) at: DocumentAddress, @Req() req: Request): Promise<{ message: string }> {
    await this.documents.delete(at.scope, at.key, expectedVersion(req));
    return { message: 'Document deleted.' };
  }
}
