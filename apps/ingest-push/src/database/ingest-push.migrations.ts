import { SalesTables1763900000000 } from './migrations/1763900000000-sales-tables.migration';
import { PushTables1763900000001 } from './migrations/1763900000001-push-tables.migration';
import { OneAccountTable1764288000000 } from './migrations/1764288000000-one-account-table.migration';
import { IngestionHeartbeat1764500000000 } from './migrations/1764500000000-ingestion-heartbeat.migration';
import { RetentionIndexes1765000000020 } from './migrations/1765000000020-retention-indexes.migration';
import { ConsoleReadIndexes1765137210000 } from './migrations/1765137210000-console-read-indexes.migration';

/** Every migration, in order, one per line. New ones are appended here. */
export const ingestPushMigrations = [
  SalesTables1763900000000,
  PushTables1763900000001,
  OneAccountTable1764288000000,
  IngestionHeartbeat1764500000000,
  RetentionIndexes1765000000020,
  ConsoleReadIndexes1765137210000,
];
