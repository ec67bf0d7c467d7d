import { webhookMigrations } from '@app/webhooks/migrations';
import { GatewaySchema1764028800000 } from './migrations/1764028800000-gateway-schema.migration';
import { GatewayListIndexes1764550800000 } from './migrations/1764550800000-gateway-list-indexes.migration';
import { GatewayRetentionIndexes1765000000010 } from './migrations/1765000000010-gateway-retention-indexes.migration';

const timestamp = (migration: { name: string }) => Number(/\d{13}$/.exec(migration.name)![0]);

/** Every migration, in the order TypeORM runs them (by the timestamp in the name: the engine's interleave with the gateway's). */
export const gatewayMigrations = [...webhookMigrations, GatewaySchema1764028800000, GatewayListIndexes1764550800000, GatewayRetentionIndexes1765000000010].sort(
  (a, b) => timestamp(a) - timestamp(b),
);
