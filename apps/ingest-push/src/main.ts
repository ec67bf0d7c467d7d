import 'reflect-metadata';
import { bootstrap } from '@app/server';
import { AppModule, INGEST_PUSH_VERSION } from './app.module';

void bootstrap(AppModule, {
  title: 'Sales ingestion and push',
  description: 'Streams sales files into PostgreSQL and fans out mobile push notifications.',
  version: INGEST_PUSH_VERSION,
});
