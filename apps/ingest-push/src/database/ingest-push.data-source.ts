import 'reflect-metadata';
import { dataSourceOptions } from '@app/database';
import { DataSource } from 'typeorm';
import { INGEST_PUSH_SCHEMA } from '../common/ingest-push.schema';
import { ingestPushEntities } from './ingest-push.entities';
import { ingestPushMigrations } from './ingest-push.migrations';

/** The data source of the TypeORM migration CLI (`typeorm migration:generate -d ...`) and of the commands (cli/). */
export function createIngestPushDataSource(url: string): DataSource {
  return new DataSource(
    dataSourceOptions(url, 2, { schema: INGEST_PUSH_SCHEMA, entities: ingestPushEntities, migrations: ingestPushMigrations }),
  );
}
