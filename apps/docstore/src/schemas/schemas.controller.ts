import { Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { RequireScopes } from '@app/auth';
import type { Response } from 'express';
import { ScopePathDto, scopeOf } from '../documents/document-path.dto';
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
  async put(@Param() path: ScopePathDto, @Body() body: PutSchemaDto, @Res({ passthrough: true }) res: Response): Promise<SchemaView> {
    const { schema, created } = await this.schemas.put(scopeOf(path), body.schema);
    res.status(created ? 201 : 200);
    return schema;
  }

  @Get()
  get(@Param() path: ScopePathDto): Promise<SchemaView> {
    return this.schemas.get(scopeOf(path));
  }

  @Delete()
  @HttpCode(204)
  async delete(@Param() path: ScopePathDto): Promise<void> {
    await this.schemas.delete(scopeOf(path));
  }
}
