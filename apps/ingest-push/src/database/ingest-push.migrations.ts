import { PushTables1763900000000 } from './migrations/1763900000000-push-tables.migration';

/** Every migration, in order, one per line. New ones are appended here. */
export const ingestPushMigrations = [
  PushTables1763900000000,
];
