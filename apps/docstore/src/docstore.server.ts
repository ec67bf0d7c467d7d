import { loadConfig } from '@app/config';
import { rootModuleFor } from '@app/queue';
import { bootstrap } from '@app/server';
import { WebhookServiceConfig } from '@app/webhooks';
import { AppModule } from './app.module';
import { DOCSTORE_VERSION } from './docstore.foundation';
import { DocstoreWebhookWorkerModule } from './webhook-worker.module';

/** Starts the docstore (or, with `migrate`, only migrates its schema). */
export function serve(): Promise<void> {
  return bootstrap(() => rootModuleFor(loadConfig(WebhookServiceConfig).WEBHOOK_WORKERS, { api: AppModule, workers: DocstoreWebhookWorkerModule }), {
    name: 'docstore',
    docs: {
      title: 'Document store',
      description: 'Versioned JSON documents with history, schemas, scoped tokens, webhooks and rate limits.',
      version: DOCSTORE_VERSION,
    },
  });
}
