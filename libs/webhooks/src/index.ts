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
export * from './webhook.migrations';
export * from './webhooks.exception';
export * from './webhooks.module';
export { WebhookAttemptsRepository, type AttemptView } from './webhook-attempts.repository';
export { WebhookOutboxRepository, type DeliveryView } from './webhook-outbox.repository';
export { type WebhookChangeHook, type WebhookChanges, type WebhookRecord } from './webhook-registrations.repository';
export * from './webhook-audit';
export { WebhookTables } from './webhook-tables';
export * from './webhooks.service';

/** Add to the app's entities. */
export const webhookEntities = [WebhookEntity, WebhookDeliveryEntity, WebhookAttemptEntity];
