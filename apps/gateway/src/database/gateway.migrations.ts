import { webhookMigrations } from '@app/webhooks';
import { GatewaySchema1764028800000 } from './migrations/1764028800000-gateway-schema.migration';

/** Every migration, in order. New ones are appended here. */
export const gatewayMigrations = [...webhookMigrations, GatewaySchema1764028800000];
