import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhookServiceConfig, WebhooksModule } from '@app/webhooks';
import { DOCSTORE_DEFAULTS, DocstoreConfig } from './config/docstore.config';
import { docstoreEntities } from './database/docstore.entities';
import { DOCSTORE_SCHEMA } from './database/docstore.schema';
import { docstoreMigrations } from './database/docstore.migrations';
import { DOCSTORE_WEBHOOK_ENGINE } from './webhooks/webhook-engine.provider';

export const DOCSTORE_VERSION = '0.1.0';

/**
 * The feature settings the docstore runs with, beside the core ones (server, database, Redis, rate limits, bodies).
 * Here rather than beside the app's config class: the commands load that class, not the webhook engine.
 */
export const DOCSTORE_SETTINGS = [DocstoreConfig, WebhookServiceConfig];

/**
 * What the API and the worker-only process both stand on: validated settings, logs, Redis and
 * rate limits (CoreModule, as `service`), the docstore's schema, and the webhook engine.
 */
export function docstoreFoundation(service: string) {
  return [
    CoreModule.forRoot({ service, version: DOCSTORE_VERSION, settings: DOCSTORE_SETTINGS, defaults: DOCSTORE_DEFAULTS }),
    DatabaseModule.forRoot({ schema: DOCSTORE_SCHEMA, entities: docstoreEntities, migrations: docstoreMigrations }),
    WebhooksModule.forRoot(DOCSTORE_WEBHOOK_ENGINE),
  ];
}
