import { AuditConfig, AuditLogEntity, AuditModule } from '@app/audit';
import type { SettingDefaults } from '@app/config';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { AccountEntity } from './accounts/account.entity';
import { INGEST_PUSH_SCHEMA } from './database/ingest-push.schema';
import { ingestPushMigrations } from './database/ingest-push.migrations';
import { PushConfig } from './push/push.config';
import { pushEntities } from './push/push.entities';
import { SalesConfig } from './sales/sales.config';
import { salesEntities } from './sales/sales.entities';

export const INGEST_PUSH_VERSION = '0.1.0';

/** Each feature's settings class, one per line, validated at start beside the core ones (server, database, Redis, rate limits, bodies). */
export const INGEST_PUSH_SETTINGS = [SalesConfig, PushConfig, AuditConfig];

/** ingest-push's defaults for shared settings. */
export const INGEST_PUSH_DEFAULTS: SettingDefaults = { PORT: 3003, REDIS_PREFIX: 'ingest-push:' };

/** Every entity of the app, one line per feature. */
export const INGEST_PUSH_ENTITIES = [AccountEntity, ...salesEntities, ...pushEntities, AuditLogEntity];

/**
 * What the API and the worker-only process both stand on: validated settings, logs, Redis and
 * rate limits (CoreModule, as `service`), and ingest-push's schema.
 */
export function ingestPushFoundation(service: string) {
  return [
    CoreModule.forRoot({ service, version: INGEST_PUSH_VERSION, settings: INGEST_PUSH_SETTINGS, defaults: INGEST_PUSH_DEFAULTS }),
    DatabaseModule.forRoot({ schema: INGEST_PUSH_SCHEMA, entities: INGEST_PUSH_ENTITIES, migrations: ingestPushMigrations }),
    AuditModule,
  ];
}
