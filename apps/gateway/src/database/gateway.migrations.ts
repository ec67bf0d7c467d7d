import { auditMigrations } from '@app/audit/migrations';
import { webhookMigrations } from '@app/webhooks/migrations';
import { GatewaySchema1764028800000 } from './migrations/1764028800000-gateway-schema.migration';
import { GatewayListIndexes1764550800000 } from './migrations/1764550800000-gateway-list-indexes.migration';
import { GatewayRetentionIndexes1765000000010 } from './migrations/1765000000010-gateway-retention-indexes.migration';
import { GatewayPricing1765400000000 } from './migrations/1765400000000-gateway-pricing.migration';
import { GatewayScheduledMessages1765400000001 } from './migrations/1765400000001-gateway-scheduled-messages.migration';
import { GatewayConversations1766000000000 } from './migrations/1766000000000-gateway-conversations.migration';
import { GatewayThreadIndex1766000000010 } from './migrations/1766000000010-gateway-thread-index.migration';
import { GatewayScheduledTrace1766500000020 } from './migrations/1766500000020-gateway-scheduled-trace.migration';

const timestamp = (migration: { name: string }) => Number(/\d{13}$/.exec(migration.name)![0]);

/** Every migration, in the order TypeORM runs them (by the timestamp in the name: the engine's interleave with the gateway's). */
export const gatewayMigrations = [
  ...webhookMigrations,
  GatewaySchema1764028800000,
  GatewayListIndexes1764550800000,
  GatewayRetentionIndexes1765000000010,
  GatewayPricing1765400000000,
  GatewayScheduledMessages1765400000001,
  GatewayConversations1766000000000,
  GatewayThreadIndex1766000000010,
  GatewayScheduledTrace1766500000020,
  ...auditMigrations,
].sort((a, b) => timestamp(a) - timestamp(b));
