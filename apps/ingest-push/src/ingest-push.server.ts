import { loadConfig } from '@app/config';
import { rootModuleFor } from '@app/queue';
import { bootstrap } from '@app/server';
import { AppModule } from './app.module';
import { INGEST_PUSH_VERSION } from './ingest-push.foundation';
import { PushConfig } from './push/push.config';
import { PushWorkerModule } from './push-worker.module';

/** Starts ingest-push (or, with `migrate`, only migrates its schema). */
export function serve(): Promise<void> {
  return bootstrap(() => rootModuleFor(loadConfig(PushConfig).PUSH_WORKERS, { api: AppModule, workers: PushWorkerModule }), {
    name: 'ingest-push',
    docs: {
      title: 'Sales ingestion and push',
      description: 'Streams sales files into PostgreSQL and fans out mobile push notifications.',
      version: INGEST_PUSH_VERSION,
    },
  });
}
