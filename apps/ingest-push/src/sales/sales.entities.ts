import { SaleEntity } from './sale.entity';
import { SalesApiKeyEntity } from './sales-api-key.entity';
import { SalesIngestionErrorEntity } from './sales-ingestion-error.entity';
import { SalesIngestionEntity } from './sales-ingestion.entity';

export const salesEntities = [SalesApiKeyEntity, SaleEntity, SalesIngestionEntity, SalesIngestionErrorEntity];
