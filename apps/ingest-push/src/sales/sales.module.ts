import { Module } from '@nestjs/common';
import { CREDENTIAL_VERIFIER } from '@app/auth';
import { loadConfig } from '@app/config';
import { SalesApiKeyVerifier } from './sales-api-key.verifier';
import { SalesApiKeysService } from './sales-api-keys.service';
import { SalesConfig } from './sales.config';
import { SalesController } from './sales.controller';
import { SalesRepository } from './sales.repository';
import { SalesService } from './sales.service';

/** Sales ingestion: `POST /DataInserterSales/api/sales` and its ingestions. */
@Module({
  controllers: [SalesController],
  providers: [
    { provide: SalesConfig, useFactory: () => loadConfig(SalesConfig) },
    SalesRepository,
    SalesService,
    SalesApiKeysService,
    SalesApiKeyVerifier,
    { provide: CREDENTIAL_VERIFIER, useExisting: SalesApiKeyVerifier },
  ],
  exports: [SalesApiKeysService, CREDENTIAL_VERIFIER],
})
export class SalesModule {}
