import { Module } from '@nestjs/common';
import { JsonSchemaValidator } from './json-schema.validator';
import { SchemaCache } from './schema-cache.service';
import { SchemasController } from './schemas.controller';
import { SchemasRepository } from './schemas.repository';
import { SchemasService } from './schemas.service';

@Module({
  controllers: [SchemasController],
  providers: [SchemasRepository, SchemasService, JsonSchemaValidator, SchemaCache],
  exports: [SchemasService],
})
export class SchemasModule {}
