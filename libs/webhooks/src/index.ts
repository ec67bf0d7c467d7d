import { WebhookTables1763856000000 } from './migrations/1763856000000-webhook-tables.migration';
import { WebhookOwnerAttempts1763942400000 } from './migrations/1763942400000-webhook-owner-attempts.migration';
import { WebhookDeliveryWindow1764115200000 } from './migrations/1764115200000-webhook-delivery-window.migration';
import { WebhookDeliveryClaim1765000000000 } from './migrations/1765000000000-webhook-delivery-claim.migration';
import { WebhookDeliveryFinishedIndex1765000000001 } from './migrations/1765000000001-webhook-delivery-finished-index.migration';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';

export * from './webhook-attempt.entity';
export * from './webhook-delivery.entity';
export * from './webhook-engine.options';
export * from './webhook-events.service';
export * from './webhook-maintenance.service';
export * from './webhook-lane';
export * from './webhook-queue';
export * from './webhook-signature';
export * from './webhook-target';
export * from './webhook.config';
export * from './webhook.entity';
export * from './webhooks.exception';
export * from './webhooks.module';
export { WebhooksRepository, type AttemptView, type DeliveryView, type WebhookChanges, type WebhookRecord } from './webhooks.repository';
export * from './webhooks.service';

/** Add to the app's entities. */
export const webhookEntities = [WebhookEntity, WebhookDeliveryEntity, WebhookAttemptEntity];
/** Add to the app's migrations (they create the tables in the app's own schema). */
export const webhookMigrations = [
  WebhookTables1763856000000, WebhookOwnerAttempts1763942400000, WebhookDeliveryWindow1764115200000,
  WebhookDeliveryClaim1765000000000, WebhookDeliveryFinishedIndex1765000000001,
];
