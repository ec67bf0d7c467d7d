import { CustomerErasureEntity } from './customer-erasure.entity';
import { SaleEntity } from './sale.entity';
import { SalesApiKeyEntity } from './sales-api-key.entity';
import { SalesIngestionErrorEntity } from './sales-ingestion-error.entity';
import { SalesIngestionEntity } from './sales-ingestion.entity';
import { SalesRollupDirtyDayEntity } from './sales-rollup-dirty-day.entity';
import { SalesRollupEntity } from './sales-rollup.entity';

export const salesEntities = [
  SalesApiKeyEntity,
  SaleEntity,
  SalesIngestionEntity,
  SalesIngestionErrorEntity,
  CustomerErasureEntity,
  SalesRollupEntity,
  SalesRollupDirtyDayEntity,
];
