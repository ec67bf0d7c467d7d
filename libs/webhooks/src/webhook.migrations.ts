import { WebhookTables1763856000000 } from './migrations/1763856000000-webhook-tables.migration';
import { WebhookOwnerAttempts1763942400000 } from './migrations/1763942400000-webhook-owner-attempts.migration';
import { WebhookDeliveryWindow1764115200000 } from './migrations/1764115200000-webhook-delivery-window.migration';
import { WebhookDeliveryClaim1765000000000 } from './migrations/1765000000000-webhook-delivery-claim.migration';
import { WebhookDeliveryFinishedIndex1765000000001 } from './migrations/1765000000001-webhook-delivery-finished-index.migration';
import { WebhookDeliveryTrace1766500000000 } from './migrations/1766500000000-webhook-delivery-trace.migration';

/**
 * Add to the app's migrations (they create the tables in the app's own schema). Also importable alone as
 * `@app/webhooks/migrations`, which loads none of the engine (queues, HTTP client, entities): the apps' commands
 * check these against the migrations table without it.
 */
export const webhookMigrations = [
  WebhookTables1763856000000,
  WebhookOwnerAttempts1763942400000,
  WebhookDeliveryWindow1764115200000,
  WebhookDeliveryClaim1765000000000,
  WebhookDeliveryFinishedIndex1765000000001,
  WebhookDeliveryTrace1766500000000,
];
