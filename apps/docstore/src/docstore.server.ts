import { loadConfig } from '@app/config';
import { bootstrap } from '@app/server';
import { WebhookServiceConfig } from '@app/webhooks';
import { AppModule, DOCSTORE_VERSION } from './app.module';
import { DocstoreWebhookWorkerModule } from './webhook-worker.module';

/** Starts the docstore (or, with `migrate`, only migrates its schema). */
export function serve(): Promise<void> {
  return bootstrap(() => (loadConfig(WebhookServiceConfig).WEBHOOK_WORKERS === 'only' ? DocstoreWebhookWorkerModule : AppModule), {
    title: 'Document store',
    description: 'Versioned JSON documents with history, schemas, scoped tokens, webhooks and rate limits.',
    version: DOCSTORE_VERSION,
  });
}
