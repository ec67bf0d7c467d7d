import { auditMigrations } from '@app/audit/migrations';
import { webhookMigrations } from '@app/webhooks/migrations';
import { InitialSchema1763769600000 } from './migrations/1763769600000-initial-schema.migration';
import { ClientOverviewIndexes1765137220000 } from './migrations/1765137220000-client-overview-indexes.migration';
import { Changes1765400000000 } from './migrations/1765400000000-changes.migration';
import { WebhookOwnerLowerCase1765137230000 } from './migrations/1765137230000-webhook-owner-lower-case.migration';

const timestamp = (migration: { name: string }) => Number(/\d{13}$/.exec(migration.name)![0]);

/** Every migration, in the order TypeORM runs them (by the timestamp in the name: the engine's interleave with the docstore's). New ones are appended here. */
export const docstoreMigrations = [
  InitialSchema1763769600000,
  ...webhookMigrations,
  ClientOverviewIndexes1765137220000,
  WebhookOwnerLowerCase1765137230000,
  Changes1765400000000,
  ...auditMigrations,
].sort((a, b) => timestamp(a) - timestamp(b));
