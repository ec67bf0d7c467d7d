import 'reflect-metadata';
import { bootstrap } from '@app/server';
import { AppModule, DOCSTORE_VERSION } from './app.module';
import { DocstoreConfig } from './config/docstore.config';

void bootstrap(AppModule, DocstoreConfig, {
  title: 'Document store',
  description: 'Versioned JSON documents with history, schemas, scoped tokens and rate limits.',
  version: DOCSTORE_VERSION,
});
