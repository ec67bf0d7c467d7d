import { Module } from '@nestjs/common';
import { SchemasModule } from '../schemas/schemas.module';
import { ClientOverviewController } from './client-overview.controller';
import { ClientOverviewRepository } from './client-overview.repository';
import { ClientOverviewService } from './client-overview.service';
import { DocumentsController } from './documents.controller';
import { DocumentsRepository } from './documents.repository';
import { DocumentsService } from './documents.service';

@Module({
  imports: [SchemasModule],
  controllers: [DocumentsController, ClientOverviewController],
  providers: [DocumentsRepository, DocumentsService, ClientOverviewRepository, ClientOverviewService],
  exports: [DocumentsRepository],
})
export class DocumentsModule {}
