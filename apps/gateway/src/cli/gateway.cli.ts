import { CommandLine } from '@app/database';
import { createGatewayDataSource } from '../database/gateway.data-source';
import { GATEWAY_SCHEMA } from '../database/gateway.entities';
import { APIKEY_COMMAND } from './apikey.command';

/** The gateway's commands (`node apps/gateway/src/main.js apikey …`, `npm run -s gateway:apikey -- …`). */
export const GATEWAY_CLI = new CommandLine({
  program: 'node apps/gateway/src/main.js',
  schema: GATEWAY_SCHEMA,
  dataSource: createGatewayDataSource,
  commands: [APIKEY_COMMAND],
});
