import { Module } from '@nestjs/common';
import { SalesApiKeyStore } from './sales-api-key.store';
import { SalesApiKeysService } from './sales-api-keys.service';
import { SalesController } from './sales.controller';
import { SalesRepository } from './sales.repository';
import { SalesService } from './sales.service';

/** Sales ingestion: `POST /DataInserterSales/api/sales`, its ingestions, and the `apiKey` store. */
@Module({
  controllers: [SalesController],
  providers: [SalesRepository, SalesService, SalesApiKeysService, SalesApiKeyStore],
  exports: [SalesApiKeysService],
})
export class SalesModule {}
