import { Module } from '@nestjs/common';
import { DocumentsModule } from '../documents/documents.module';
import { SchemasModule } from '../schemas/schemas.module';
import { HistoryController } from './history.controller';
import { HistoryRepository } from './history.repository';
import { HistoryService } from './history.service';

@Module({
  imports: [DocumentsModule, SchemasModule],
  controllers: [HistoryController],
  providers: [HistoryRepository, HistoryService],
})
export class HistoryModule {}
