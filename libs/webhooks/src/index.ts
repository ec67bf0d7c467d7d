import { WebhookTables1763856000000 } from './migrations/1763856000000-webhook-tables.migration';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

export * from './outbox-relay.service';
export * from './webhook-delivery.entity';
export * from './webhook-events.service';
export * from './webhook-queue';
export * from './webhook-signature';
export * from './webhook-target';
export * from './webhook.config';
export * from './webhook.entity';
export * from './webhooks.exception';
export * from './webhooks.module';
export { DELIVERIES_RECORDED, recordEventsCte, WebhooksRepository, type DeliveryView, type WebhookView } from './webhooks.repository';
export * from './webhooks.service';

/** Add to the app's entities. */
export const webhookEntities = [WebhookEntity, WebhookDeliveryEntity];
/** Add to the app's migrations (they create the tables in the app's own schema). */
export const webhookMigrations = [WebhookTables1763856000000];
