import type { AuditActor, AuditRecorder } from '@app/audit';
import type { WebhookChangeHook, WebhookRecord } from './webhook-registrations.repository';

export type WebhookAuditAction = 'webhook.created' | 'webhook.updated' | 'webhook.rotated' | 'webhook.deleted';

/** What the audit log keeps of a webhook: header names only (their values may be credentials), never the secret. */
const audited = (w: WebhookRecord) => ({
  url: w.url,
  events: w.events,
  status: w.status,
  headers: Object.fromEntries(Object.keys(w.headers).map((name) => [name, '***'])),
});

/**
 * The hook that records a webhook change in the audit log, in the change's transaction. A rotation records that the
 * secret changed (masked on both sides), never its value.
 */
export function auditWebhookChange(audit: AuditRecorder, actor: AuditActor, tenantId: string, action: WebhookAuditAction): WebhookChangeHook {
  return (tx, before, after) => {
    const target = (after ?? before)!;
    const rotated = action === 'webhook.rotated';
    return audit.record(tx, actor, {
      tenantId,
      action,
      targetType: 'webhook',
      targetId: target.id,
      before: rotated ? { secret: 'previous' } : before && audited(before),
      after: rotated ? { secret: 'new' } : after && audited(after),
    });
  };
}
