import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import type { Response } from 'express';
import { DocumentPathPipe, type DocumentAddress } from '../address/document-path.pipe';
import { DocstoreScope } from '../tokens/docstore-scopes';
import { PutSchemaDto } from './schema.dto';
import { SchemasService } from './schemas.service';
import type { SchemaView } from './schemas.repository';

@ApiTags('schemas')
@ApiBearerAuth()
@RequireScopes(DocstoreScope.SchemaManage)
@Controller('api/v1/client/:client/:environment/context/:context/type/:type/schema')
export class SchemasController {
  constructor(private readonly schemas: SchemasService) {}

  /** 201 when created, 200 when it replaced the scope's schema. */
  @Post()
  async put(@Param(DocumentPathPipe) at: DocumentAddress, @Body() body: PutSchemaDto, @Res({ passthrough: true }) res: Response): Promise<SchemaView> {
    const { schema, created } = await this.schemas.put(at.scope, body.schema);
    res.status(created ? 201 : 200);
    return schema;
  }

  @Get()
  get(@Param(DocumentPathPipe) at: DocumentAddress): Promise<SchemaView> {
    return this.schemas.get(at.scope);
  }

  @Delete()
  @HttpCode(204)
  async delete(@Param(DocumentPathPipe) at: DocumentAddress): Promise<void> {
    await this.schemas.delete(at.scope);
  }
}
