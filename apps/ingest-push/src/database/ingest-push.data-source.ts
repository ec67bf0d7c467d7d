import 'reflect-metadata';
import { dataSourceOptions } from '@app/database';
import { DataSource } from 'typeorm';
import { INGEST_PUSH_SCHEMA } from './ingest-push.schema';
import { ingestPushMigrations } from './ingest-push.migrations';

/**
 * The data source the commands (cli/) migrate with: migrations only. The entities belong to the running
 * app (ingest-push.foundation.ts); the migrations spec prints the SQL they still lack when the two disagree.
 */
export function createIngestPushDataSource(url: string): DataSource {
  return new DataSource(dataSourceOptions(url, 2, { schema: INGEST_PUSH_SCHEMA, entities: [], migrations: ingestPushMigrations }));
}
