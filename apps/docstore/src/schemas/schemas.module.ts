import { Module } from '@nestjs/common';
import { JsonSchemaValidator } from './json-schema.validator';
import { SchemasController } from './schemas.controller';
import { SchemasRepository } from './schemas.repository';
import { SchemasService } from './schemas.service';

@Module({
  controllers: [SchemasController],
  providers: [SchemasRepository, SchemasService, JsonSchemaValidator],
  exports: [SchemasService],
})
export class SchemasModule {}
