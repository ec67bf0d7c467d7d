import { auditMigrations } from '@app/audit/migrations';
import { SalesTables1763900000000 } from './migrations/1763900000000-sales-tables.migration';
import { PushTables1763900000001 } from './migrations/1763900000001-push-tables.migration';
import { OneAccountTable1764288000000 } from './migrations/1764288000000-one-account-table.migration';
import { IngestionHeartbeat1764500000000 } from './migrations/1764500000000-ingestion-heartbeat.migration';
import { RetentionIndexes1765000000020 } from './migrations/1765000000020-retention-indexes.migration';
import { ConsoleReadIndexes1765137210000 } from './migrations/1765137210000-console-read-indexes.migration';
import { PushCampaigns1765200000000 } from './migrations/1765200000000-push-campaigns.migration';
import { SalesReads1765400000038 } from './migrations/1765400000038-sales-reads.migration';
import { PushItemTrace1766500000010 } from './migrations/1766500000010-push-item-trace.migration';
import { PushItemHotClaims1766600000000 } from './migrations/1766600000000-push-item-hot-claims.migration';
import { SalesRollups1766600000038 } from './migrations/1766600000038-sales-rollups.migration';
import { SalesRollupBlocks1767100000038 } from './migrations/1767100000038-sales-rollup-blocks.migration';

/** Every migration, in order, one per line. New ones are appended here. */
export const ingestPushMigrations = [
  SalesTables1763900000000,
  PushTables1763900000001,
  OneAccountTable1764288000000,
  IngestionHeartbeat1764500000000,
  RetentionIndexes1765000000020,
  ConsoleReadIndexes1765137210000,
  PushCampaigns1765200000000,
  SalesReads1765400000038,
  PushItemTrace1766500000010,
  PushItemHotClaims1766600000000,
  SalesRollups1766600000038,
  ...auditMigrations,
  SalesRollupBlocks1767100000038,
];
