import 'reflect-metadata';
import { INGEST_PUSH_CLI } from './cli/ingest-push.cli';

// A command (`main.js apikey …`) loads only what it needs; the service's modules load to serve.
void INGEST_PUSH_CLI.main(process.argv.slice(2), async () => {
  const [{ loadConfig }, { bootstrap }, { AppModule, INGEST_PUSH_VERSION }, { PushConfig }, { PushWorkerModule }] = await Promise.all([
    import('@app/config'),
    import('@app/server'),
    import('./app.module'),
    import('./push/push.config'),
    import('./push/push-worker.module'),
  ]);
  await bootstrap(() => (loadConfig(PushConfig).PUSH_WORKERS === 'only' ? PushWorkerModule : AppModule), {
    title: 'Sales ingestion and push',
    description: 'Streams sales files into PostgreSQL and fans out mobile push notifications.',
    version: INGEST_PUSH_VERSION,
  });
});
