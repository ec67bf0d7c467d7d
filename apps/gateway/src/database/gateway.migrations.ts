import { GatewaySchema1763942400000 } from './migrations/1763942400000-gateway-schema.migration';

/** Every migration, in order. New ones are appended here. */
export const gatewayMigrations = [GatewaySchema1763942400000];
