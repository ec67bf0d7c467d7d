import 'reflect-metadata';
import { dataSourceOptions } from '@app/database';
import { DataSource } from 'typeorm';
import { DOCSTORE_SCHEMA } from './docstore.schema';
import { docstoreMigrations } from './docstore.migrations';

/**
 * The data source the commands (cli/) migrate with: migrations only. The entities belong to the running
 * app (docstore.foundation.ts); the migrations spec prints the SQL they still lack when the two disagree.
 */
export function createDocstoreDataSource(url: string): DataSource {
  return new DataSource(dataSourceOptions(url, 2, { schema: DOCSTORE_SCHEMA, entities: [], migrations: docstoreMigrations }));
}
