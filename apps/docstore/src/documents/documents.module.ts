import { Module } from '@nestjs/common';
import { SchemasModule } from '../schemas/schemas.module';
import { DocumentsController } from './documents.controller';
import { DocumentsRepository } from './documents.repository';
import { DocumentsService } from './documents.service';

@Module({
  imports: [SchemasModule],
  controllers: [DocumentsController],
  providers: [DocumentsRepository, DocumentsService],
  exports: [DocumentsRepository],
})
export class DocumentsModule {}
