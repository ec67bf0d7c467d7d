import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { CoreModule } from '@app/server';
import { WebhooksModule } from '@app/webhooks';
import { DOCSTORE_VERSION } from './app.module';
import { DOCSTORE_DEFAULTS, DOCSTORE_SETTINGS } from './config/docstore.config';
import { DOCSTORE_SCHEMA, docstoreEntities } from './database/docstore.entities';
import { docstoreMigrations } from './database/docstore.migrations';
import { DOCSTORE_WEBHOOK_ENGINE } from './webhooks/webhook-engine.provider';

/**
 * What runs with WEBHOOK_WORKERS=only: the delivery workers and the outbox relay, with
 * /health and no API, so Kubernetes can scale delivery apart from the API.
 */
@Module({
  imports: [
    CoreModule.forRoot({ service: 'docstore-webhooks', version: DOCSTORE_VERSION, settings: DOCSTORE_SETTINGS, defaults: DOCSTORE_DEFAULTS }),
    DatabaseModule.forRoot({ schema: DOCSTORE_SCHEMA, entities: docstoreEntities, migrations: docstoreMigrations }),
    WebhooksModule.forRoot(DOCSTORE_WEBHOOK_ENGINE),
  ],
})
export class DocstoreWebhookWorkerModule {}
