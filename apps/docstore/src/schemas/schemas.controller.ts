import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Actor, type AuditActor } from '@app/audit';
import { RequireScopes } from '@app/auth';
import { ApiErrors } from '@app/errors';
import type { Response } from 'express';
import { ApiDocumentPath } from '../address/document-path.decorator';
import { DocumentPathPipe, type DocumentAddress } from '../address/document-path.pipe';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { PUT_SCHEMA_EXAMPLES, PutSchemaDto, SchemaDto } from './schema.dto';
import { SchemasService } from './schemas.service';

@ApiTags('schemas')
@ApiBearerAuth()
@ApiErrors(401, 403, 429)
@RequireScopes(DocstoreScope.SchemaManage)
@Controller('api/v1/client/:client/:environment/context/:context/type/:type/schema')
export class SchemasController {
  constructor(private readonly schemas: SchemasService) {}

  /** 201 when created, 200 when it replaced the scope's schema. */
  @Post()
  @ApiDocumentPath()
  @ApiErrors(400, 413, 415)
  @ApiBody({ type: PutSchemaDto, examples: PUT_SCHEMA_EXAMPLES })
  @ApiCreatedResponse({ type: SchemaDto, description: 'The collection had no schema.' })
  @ApiOkResponse({ type: SchemaDto, description: "It replaced the collection's schema." })
  async put(
    @Param(DocumentPathPipe) at: DocumentAddress,
    @Body() body: PutSchemaDto,
    @Res({ passthrough: true }) res: Response,
    @Actor() actor: AuditActor,
  ): Promise<SchemaDto> {
    const { schema, created } = await this.schemas.put(at.scope, body.schema, actor);
    res.status(created ? 201 : 200);
    return schema;
  }

  @Get()
  @ApiDocumentPath()
  @ApiErrors(404)
  @ApiOkResponse({ type: SchemaDto })
  get(@Param(DocumentPathPipe) at: DocumentAddress): Promise<SchemaDto> {
    return this.schemas.get(at.scope);
  }

  @Delete()
  @ApiDocumentPath()
  @ApiErrors(404)
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Removed.' })
  async delete(@Param(DocumentPathPipe) at: DocumentAddress, @Actor() actor: AuditActor): Promise<void> {
    await this.schemas.delete(at.scope, actor);
  }
}
