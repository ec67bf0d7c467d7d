import 'reflect-metadata';
import { dataSourceOptions } from '@app/database';
import { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from './gateway.schema';
import { gatewayMigrations } from './gateway.migrations';

/**
 * The data source the commands (cli/) migrate with: migrations only. The entities belong to the running
 * app (gateway.foundation.ts); the migrations spec prints the SQL they still lack when the two disagree.
 */
export function createGatewayDataSource(url: string): DataSource {
  return new DataSource(dataSourceOptions(url, 2, { schema: GATEWAY_SCHEMA, entities: [], migrations: gatewayMigrations }));
}
