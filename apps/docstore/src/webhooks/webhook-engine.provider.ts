import { standardWebhooksSigner, type WebhookEngineOptions } from '@app/webhooks';

/**
 * How the docstore uses the webhook engine: webhooks are owned by a client (its id), the
 * payload is `{id, type, created_at, client_id, data}`, signed per Standard Webhooks, and
 * WEBHOOK_ALLOWED_TARGETS hosts may use plain http (receivers in the same cluster).
 */
export const DOCSTORE_WEBHOOK_ENGINE: WebhookEngineOptions = {
  envelope: (event) => JSON.stringify({ id: event.id, type: event.type, created_at: event.occurredAt, client_id: event.owner, data: event.data }),
  signer: standardWebhooksSigner,
  allowHttpForAllowedTargets: true,
};
