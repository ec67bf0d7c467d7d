import { Injectable } from '@nestjs/common';
import type { PageQuery } from '@app/pagination';
import { AuditLog, type AuditActor } from '@app/audit';
import { auditWebhookChange, WebhooksService, type WebhookRecord } from '@app/webhooks';
import type { AttemptDto, CreatedWebhookDto, CreateWebhookDto, DeliveryDto, RotatedWebhookDto, UpdateWebhookDto, WebhookDto } from './webhook.dto';

/** A webhook as the docstore's API shows it. */
function view(record: WebhookRecord): WebhookDto {
  return {
    id: record.id,
    client_id: record.owner,
    url: record.url,
    events: record.events,
    status: record.status,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

/** The docstore's webhook API on the shared engine: a client owns its webhooks. */
@Injectable()
export class DocstoreWebhooksService {
  constructor(
    private readonly engine: WebhooksService,
    private readonly audit: AuditLog,
  ) {}

  /** The answer carries `secret`, shown only here and on rotation. */
  async create(clientId: string, input: CreateWebhookDto, actor: AuditActor): Promise<CreatedWebhookDto> {
    const { webhook, secret } = await this.engine.create(clientId, input, auditWebhookChange(this.audit, actor, clientId, 'webhook.created'));
    return { ...view(webhook), secret: secret! };
  }

  async get(clientId: string, id: string): Promise<WebhookDto> {
    return view(await this.engine.get(clientId, id));
  }

  async list(clientId: string, page: PageQuery): Promise<{ rows: WebhookDto[]; total: number }> {
    const { rows, total } = await this.engine.list(clientId, page);
    return { rows: rows.map(view), total };
  }

  async update(clientId: string, id: string, changes: UpdateWebhookDto, actor: AuditActor): Promise<WebhookDto> {
    return view(await this.engine.update(clientId, id, changes, auditWebhookChange(this.audit, actor, clientId, 'webhook.updated')));
  }

  delete(clientId: string, id: string, actor: AuditActor): Promise<void> {
    return this.engine.delete(clientId, id, auditWebhookChange(this.audit, actor, clientId, 'webhook.deleted'));
  }

  async rotateSecret(clientId: string, id: string, actor: AuditActor): Promise<RotatedWebhookDto> {
    const rotated = await this.engine.rotateSecret(clientId, id, auditWebhookChange(this.audit, actor, clientId, 'webhook.rotated'));
    return { ...view(rotated), secret: rotated.secret, previous_secret_expires_at: rotated.previous_secret_expires_at };
  }

  deliveries(clientId: string, id: string, page: PageQuery): Promise<{ rows: DeliveryDto[]; total: number }> {
    return this.engine.deliveries(clientId, id, page);
  }

  attempts(clientId: string, id: string, deliveryId: string, page: PageQuery): Promise<{ rows: AttemptDto[]; total: number }> {
    return this.engine.attempts(clientId, id, deliveryId, page);
  }

  redeliver(clientId: string, id: string, deliveryId: string): Promise<DeliveryDto> {
    return this.engine.redeliver(clientId, id, deliveryId);
  }
}
