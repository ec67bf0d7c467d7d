import { CommandLine } from '@app/database';
import { gatewayMigrations } from '../database/gateway.migrations';
import { GATEWAY_SCHEMA } from '../database/gateway.schema';
import { APIKEY_COMMAND } from './apikey.command';

/** The gateway's commands (`node apps/gateway/src/main.js apikey …`, `npm run -s gateway:apikey -- …`). */
export const GATEWAY_CLI = new CommandLine({
  program: 'node apps/gateway/src/main.js',
  schema: GATEWAY_SCHEMA,
  migrations: gatewayMigrations,
  dataSource: async (url) => (await import('../database/gateway.data-source')).createGatewayDataSource(url),
  commands: [APIKEY_COMMAND],
});
