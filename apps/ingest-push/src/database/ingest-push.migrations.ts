import { SalesTables1763900000000 } from './migrations/1763900000000-sales-tables.migration';

/** Every migration, in order, one per line. New ones are appended here. */
export const ingestPushMigrations = [
  SalesTables1763900000000,
];
