import { webhookMigrations } from '@app/webhooks/migrations';
import { InitialSchema1763769600000 } from './migrations/1763769600000-initial-schema.migration';

/** Every migration, in order. New ones are appended here. */
export const docstoreMigrations = [InitialSchema1763769600000, ...webhookMigrations];
