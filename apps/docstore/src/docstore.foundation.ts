import { AuditConfig, AuditLogEntity, AuditModule } from '@app/audit';
import type { SettingDefaults } from '@app/config';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhookServiceConfig, WebhooksModule, webhookEntities } from '@app/webhooks';
import { ChangeSequenceEntity } from './changes/change-sequence.entity';
import { ChangeEntity } from './changes/change.entity';
import { ChangesConfig } from './changes/changes.config';
import { DOCSTORE_SCHEMA } from './database/docstore.schema';
import { docstoreMigrations } from './database/docstore.migrations';
import { DocumentEntity } from './documents/document.entity';
import { DocumentsConfig } from './documents/documents.config';
import { HistoryEntryEntity } from './history/history-entry.entity';
import { SchemaEntity } from './schemas/schema.entity';
import { TokenEntity } from './tokens/token.entity';
import { TokensConfig } from './tokens/tokens.config';
import { DOCSTORE_WEBHOOK_ENGINE } from './webhooks/webhook-engine.provider';

export const DOCSTORE_VERSION = '0.1.0';

/** Each feature's settings class, one per line, validated at start beside the core ones (server, database, Redis, rate limits, bodies). */
export const DOCSTORE_SETTINGS = [DocumentsConfig, TokensConfig, ChangesConfig, WebhookServiceConfig, AuditConfig];

/** The docstore's defaults for shared settings. */
export const DOCSTORE_DEFAULTS: SettingDefaults = { PORT: 3001, REDIS_PREFIX: 'docstore:' };

/** Every entity of the app, one line per feature. */
export const DOCSTORE_ENTITIES = [
  DocumentEntity,
  HistoryEntryEntity,
  SchemaEntity,
  TokenEntity,
  ChangeEntity,
  ChangeSequenceEntity,
  ...webhookEntities,
  AuditLogEntity,
];

/**
 * What the API and the worker-only process both stand on: validated settings, logs, Redis and
 * rate limits (CoreModule, as `service`), the docstore's schema, the webhook engine and the audit log.
 */
export function docstoreFoundation(service: string) {
  return [
    CoreModule.forRoot({ service, version: DOCSTORE_VERSION, settings: DOCSTORE_SETTINGS, defaults: DOCSTORE_DEFAULTS }),
    DatabaseModule.forRoot({ schema: DOCSTORE_SCHEMA, entities: DOCSTORE_ENTITIES, migrations: docstoreMigrations }),
    WebhooksModule.forRoot(DOCSTORE_WEBHOOK_ENGINE),
    AuditModule,
  ];
}
