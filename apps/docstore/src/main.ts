import 'reflect-metadata';
import { DOCSTORE_CLI } from './cli/docstore.cli';

// A command (`main.js token …`) loads only what it needs; the service's modules load to serve.
void DOCSTORE_CLI.main(process.argv.slice(2), async () => {
  const [{ loadConfig }, { bootstrap }, { WebhookServiceConfig }, { AppModule, DOCSTORE_VERSION }, { DocstoreWebhookWorkerModule }] = await Promise.all([
    import('@app/config'),
    import('@app/server'),
    import('@app/webhooks'),
    import('./app.module'),
    import('./webhook-worker.module'),
  ]);
  await bootstrap(() => (loadConfig(WebhookServiceConfig).WEBHOOK_WORKERS === 'only' ? DocstoreWebhookWorkerModule : AppModule), {
    title: 'Document store',
    description: 'Versioned JSON documents with history, schemas, scoped tokens, webhooks and rate limits.',
    version: DOCSTORE_VERSION,
  });
});
