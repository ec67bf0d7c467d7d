import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiHeader, ApiNotModifiedResponse, ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import { ApiPaginatedResponse, paginate, PageRequest, type Paginated, type Paging } from '@app/pagination';
import type { Request, Response } from 'express';
import { ApiDocumentPath } from '../address/document-path.decorator';
import { DocumentPathPipe, type DocumentAddress } from '../address/document-path.pipe';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { expectedVersion, IF_MATCH, notModified, setDocumentEtag } from './document-etag';
import { DocumentListQueryDto, DocumentReadQueryDto, isTrueWord, MAX_FILTERS } from './document-query.dto';
import { BULK_BODY_EXAMPLES, BulkBodyDto, DOCUMENT_BODY_EXAMPLES, DocumentBodyDto, DocumentDeletedDto, DocumentDto } from './document.dto';
import { DocumentsService } from './documents.service';

/** Every document answer carries its version as ETag. */
const ETAG_HEADER = { ETag: { description: 'The version, quoted: "3".', schema: { type: 'string' } } };

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
    description: `filter[field]=value; also _gt, _gte, _lt, _lte, _neq, _like suffixes; nested fields with dots (filter[a.b]); at most ${MAX_FILTERS}.`,
  })
  @ApiPaginatedResponse(DocumentDto, 'One page of the live documents (all of them with deleted=true).')
  async list(
    @Param(DocumentPathPipe) at: DocumentAddress,
    @Query() query: DocumentListQueryDto,
    @PageRequest() paging: Paging,
  ): Promise<Paginated<DocumentDto>> {
    const { rows, total } = await this.documents.list(at.scope, DocumentListQueryDto.read(query), paging);
    return paginate(rows, total, paging);
  }

  @Post('bulk')
  @HttpCode(200)
  @RequireScopes(DocstoreScope.DocumentCreate, DocstoreScope.DocumentUpdate)
  @ApiDocumentPath()
  @ApiErrors(400, 409, 413, 415)
  @ApiBody({ type: BulkBodyDto, examples: BULK_BODY_EXAMPLES })
  @ApiOkResponse({ type: [DocumentDto], description: 'Every document written, in input order.' })
  bulk(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: BulkBodyDto): Promise<DocumentDto[]> {
    return this.documents.bulk(at.scope, body.documents);
  }

  @Post(':key')
  @RequireScopes(DocstoreScope.DocumentCreate)
  @ApiDocumentPath('key')
  @ApiErrors(400, 409, 413, 415)
  @ApiBody({ type: DocumentBodyDto, examples: DOCUMENT_BODY_EXAMPLES })
  @ApiCreatedResponse({ type: DocumentDto, headers: ETAG_HEADER })
  async create(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: DocumentBodyDto, @Res({ passthrough: true }) res: Response): Promise<DocumentDto> {
    return setDocumentEtag(res, await this.documents.create(at.scope, at.key, body));
  }

  @Get(':key')
  @RequireScopes(DocstoreScope.DocumentRead)
  @ApiDocumentPath('key')
  @ApiErrors(404)
  @ApiOkResponse({ type: DocumentDto, headers: ETAG_HEADER })
  @ApiNotModifiedResponse({ description: 'If-None-Match names the current version.' })
  async get(
    @Param(DocumentPathPipe) at: DocumentAddress,
    @Query() query: DocumentReadQueryDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DocumentDto | void> {
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
  @ApiOkResponse({ type: DocumentDto, headers: ETAG_HEADER, description: 'The document, version + 1.' })
  async update(
    @Param(DocumentPathPipe) at: DocumentAddress,
    @Body() body: DocumentBodyDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<DocumentDto> {
    return setDocumentEtag(res, await this.documents.update(at.scope, at.key, body, expectedVersion(req)));
  }

  @Delete(':key')
  @RequireScopes(DocstoreScope.DocumentDelete)
  @ApiHeader(IF_MATCH)
  @ApiDocumentPath('key')
  @ApiErrors(404, 412)
  @ApiOkResponse({ type: DocumentDeletedDto, description: 'Soft-deleted.' })
  async delete(@Param(DocumentPathPipe) at: DocumentAddress, @Req() req: Request): Promise<DocumentDeletedDto> {
    await this.documents.delete(at.scope, at.key, expectedVersion(req));
    return { message: 'Document deleted.' };
  }
}
