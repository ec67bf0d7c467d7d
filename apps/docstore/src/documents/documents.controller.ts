import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { Request, Response } from 'express';
import { ApiDocumentPath } from '../address/document-path.decorator';
import { DocumentPathPipe, type DocumentAddress } from '../address/document-path.pipe';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { expectedVersion, IF_MATCH, notModified, setDocumentEtag } from './document-etag';
import { DocumentListQueryDto, DocumentReadQueryDto, isTrueWord } from './document-query.dto';
import { BULK_BODY_EXAMPLES, BulkBodyDto, DOCUMENT_BODY_EXAMPLES, DocumentBodyDto, type DocumentView } from './document.dto';
import { DocumentsService } from './documents.service';

@ApiTags('documents')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@Controller('api/v1/client/:client/:environment/context/:context/type/:type')
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Get()
  @RequireScopes(DocstoreScope.DocumentRead)
  @ApiDocumentPath()
  @ApiQuery({
    name: 'filter',
    required: false,
    style: 'deepObject',
    explode: true,
    schema: { type: 'object', additionalProperties: { type: 'string' }, example: { name: 'Mug', price_gte: '5' } },
    description: 'filter[field]=value; also _gt, _gte, _lt, _lte, _neq, _like suffixes; nested fields with dots (filter[a.b]).',
  })
  async list(@Param(DocumentPathPipe) at: DocumentAddress, @Query() query: DocumentListQueryDto, @PageRequest() paging: Paging): Promise<Paginated<DocumentView>> {
    const { rows, total } = await this.documents.list(at.scope, DocumentListQueryDto.read(query), paging);
    return paginate(rows, total, paging);
  }

  @Post('bulk')
  @HttpCode(200)
  @RequireScopes(DocstoreScope.DocumentCreate, DocstoreScope.DocumentUpdate)
  @ApiDocumentPath()
  @ApiErrors(400, 409, 413, 415)
  @ApiBody({ type: BulkBodyDto, examples: BULK_BODY_EXAMPLES })
  bulk(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: BulkBodyDto): Promise<DocumentView[]> {
    return this.documents.bulk(at.scope, body.documents);
  }

  @Post(':key')
  @RequireScopes(DocstoreScope.DocumentCreate)
  @ApiDocumentPath('key')
  @ApiErrors(400, 409, 413, 415)
  @ApiBody({ type: DocumentBodyDto, examples: DOCUMENT_BODY_EXAMPLES })
  async create(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: DocumentBodyDto, @Res({ passthrough: true }) res: Response): Promise<DocumentView> {
    return setDocumentEtag(res, await this.documents.create(at.scope, at.key, body));
  }

  @Get(':key')
  @RequireScopes(DocstoreScope.DocumentRead)
  @ApiDocumentPath('key')
  @ApiErrors(404)
  async get(
    @Param(DocumentPathPipe) at: DocumentAddress, @Query() query: DocumentReadQueryDto, @Req() req: Request, @Res({ passthrough: true }) res: Response,
  ): Promise<DocumentView | void> {
    const document = setDocumentEtag(res, await this.documents.get(at.scope, at.key, isTrueWord(query.deleted)));
    if (notModified(req, document)) {
      res.status(304);
      return;
    }
    return document;
  }

  @Put(':key')
  @RequireScopes(DocstoreScope.DocumentUpdate)
  @ApiHeader(IF_MATCH)
  @ApiDocumentPath('key')
  @ApiErrors(400, 404, 412, 413, 415)
  @ApiBody({ type: DocumentBodyDto, examples: DOCUMENT_BODY_EXAMPLES })
  async update(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: DocumentBodyDto, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<DocumentView> {
    return setDocumentEtag(res, await this.documents.update(at.scope, at.key, body, expectedVersion(req)));
  }

  @Delete(':key')
  @RequireScopes(DocstoreScope.DocumentDelete)
  @ApiHeader(IF_MATCH)
  @ApiDocumentPath('key')
  @ApiErrors(404, 412)
  async delete(@Param(DocumentPathPipe) at: DocumentAddress, @Req() req: Request): Promise<{ message: string }> {
    await this.documents.delete(at.scope, at.key, expectedVersion(req));
    return { message: 'Document deleted.' };
  }
}
