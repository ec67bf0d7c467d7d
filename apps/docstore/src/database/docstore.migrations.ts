import { webhookMigrations } from '@app/webhooks/migrations';
import { InitialSchema1763769600000 } from './migrations/1763769600000-initial-schema.migration';
import { ClientOverviewIndexes1765137220000 } from './migrations/1765137220000-client-overview-indexes.migration';
import { WebhookOwnerLowerCase1765137230000 } from './migrations/1765137230000-webhook-owner-lower-case.migration';

/** Every migration, in order. New ones are appended here. */
export const docstoreMigrations = [InitialSchema1763769600000, ...webhookMigrations, ClientOverviewIndexes1765137220000, WebhookOwnerLowerCase1765137230000];
