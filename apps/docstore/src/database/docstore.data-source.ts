import 'reflect-metadata';
import { dataSourceOptions } from '@app/database';
import { DataSource } from 'typeorm';
import { docstoreEntities } from './docstore.entities';
import { DOCSTORE_SCHEMA } from './docstore.schema';
import { docstoreMigrations } from './docstore.migrations';

/** The data source of the TypeORM migration CLI (`typeorm migration:generate -d ...`) and of the commands (cli/). */
export function createDocstoreDataSource(url: string): DataSource {
  return new DataSource(
    dataSourceOptions(url, 2, { schema: DOCSTORE_SCHEMA, entities: docstoreEntities, migrations: docstoreMigrations }),
  );
}
