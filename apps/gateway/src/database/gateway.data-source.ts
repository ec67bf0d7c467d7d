import 'reflect-metadata';
import { dataSourceOptions } from '@app/database';
import { DataSource } from 'typeorm';
import { gatewayEntities } from './gateway.entities';
import { GATEWAY_SCHEMA } from './gateway.schema';
import { gatewayMigrations } from './gateway.migrations';

/** The data source of the TypeORM migration CLI and of the commands (cli/). */
export function createGatewayDataSource(url: string): DataSource {
  return new DataSource(dataSourceOptions(url, 2, { schema: GATEWAY_SCHEMA, entities: gatewayEntities, migrations: gatewayMigrations }));
}
