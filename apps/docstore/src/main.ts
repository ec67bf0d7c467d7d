import 'reflect-metadata';
import { bootstrap } from '@app/server';
import { AppModule, DOCSTORE_VERSION } from './app.module';
import { DocstoreConfig } from './config/docstore.config';
import { DocstoreWebhookWorkerModule } from './webhook-worker.module';

void bootstrap((config) => (config.WEBHOOK_WORKERS === 'only' ? DocstoreWebhookWorkerModule : AppModule), DocstoreConfig, {
  title: 'Document store',
  description: 'Versioned JSON documents with history, schemas, scoped tokens, webhooks and rate limits.',
  version: DOCSTORE_VERSION,
});
