import { Injectable } from '@nestjs/common';
import { AuditLog, type AuditActor } from '@app/audit';
import {
  auditWebhookChange,
  TargetPolicy,
  WebhookLimitReachedException,
  WebhooksService,
  type AttemptView,
  type DeliveryView,
  type WebhookRecord,
} from '@app/webhooks';
import { PhonesService } from '../accounts/phones.service';
import { cursorPage, offsetCursor, offsetOf, type CursorPage, type CursorPaging } from '../common/cursor-page';
import { InvalidParameterException } from '../errors/network-error.exception';
import type { PhoneContext } from '../network/chat-provider';
import type { WebhookCreated, WebhookList, WebhookUpdated, WebhookView } from './webhook-answers.dto';
import { META_VERSION, type CreateWebhookBody, type UpdateWebhookBody } from './webhook-registration.dto';

const ALL = { perPage: 1000, offset: 0 };

/**
 * The spec's webhook registrations on the shared engine: each webhook belongs to one
 * business phone (the engine's owner), the key's own or, with `phone_id`, another phone
 * of the same account; `types` are the engine's events, `endpoint` its url.
 */
@Injectable()
export class WebhookRegistrationsService {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly phones: PhonesService,
    private readonly targets: TargetPolicy,
    private readonly audit: AuditLog,
  ) {}

  async create(own: PhoneContext, phoneId: string | undefined, body: CreateWebhookBody, actor: AuditActor): Promise<WebhookCreated> {
    const phone = await this.targetPhone(own, phoneId, body.phone);
    await this.checkEndpoint(body.endpoint);
    const { webhook } = await this.webhooks
      .create(
        phone.phoneRef,
        { url: body.endpoint, events: body.types, headers: body.headers ?? {} },
        auditWebhookChange(this.audit, actor, phone.accountId, 'webhook.created'),
      )
      .catch((error: unknown) => {
        // The engine's cap (WEBHOOKS_MAX_PER_OWNER, per phone here), told in the network's (#100) body.
        if (error instanceof WebhookLimitReachedException) {
          throw new InvalidParameterException('phone', `${phone.phone} already has ${error.max} webhooks, the most allowed: delete one to register another`);
        }
        throw error;
      });
    const { meta_version: _omitted, ...view } = this.view(phone, webhook);
    return { success: true, ...view };
  }

  async list(own: PhoneContext): Promise<WebhookList> {
    const { rows } = await this.webhooks.list(own.phoneRef, ALL);
    return { webhooks: rows.map((row) => this.view(own, row)), success: true };
  }

  async update(own: PhoneContext, phoneId: string | undefined, id: string, body: UpdateWebhookBody, actor: AuditActor): Promise<WebhookUpdated> {
    const phone = await this.targetPhone(own, phoneId, body.phone);
    // A field sent as null is kept, as one left out.
    const endpoint = body.endpoint ?? undefined;
    if (endpoint !== undefined) await this.checkEndpoint(endpoint);
    const webhook = await this.webhooks.update(
      phone.phoneRef,
      id,
      { url: endpoint, events: body.types ?? undefined, headers: body.headers ?? undefined },
      auditWebhookChange(this.audit, actor, phone.accountId, 'webhook.updated'),
    );
    const { types: _omitted, ...view } = this.view(phone, webhook);
    return { success: true, ...view };
  }

  async delete(own: PhoneContext, phoneId: string | undefined, id: string, actor: AuditActor): Promise<void> {
    const phone = await this.phones.select(own, phoneId);
    await this.webhooks.delete(phone.phoneRef, id, auditWebhookChange(this.audit, actor, phone.accountId, 'webhook.deleted'));
  }

  /** The webhook's deliveries, newest first. */
  async deliveries(own: PhoneContext, phoneId: string | undefined, id: string, paging: CursorPaging): Promise<CursorPage<DeliveryView>> {
    const phone = await this.phones.select(own, phoneId);
    const offset = offsetOf(paging);
    const { rows, total } = await this.webhooks.deliveries(phone.phoneRef, id, { perPage: paging.limit, offset });
    return cursorPage(rows, paging, offsetCursor(offset, rows.length, total));
  }

  /** Every attempt of one delivery, oldest first. */
  async attempts(own: PhoneContext, phoneId: string | undefined, id: string, deliveryId: string, paging: CursorPaging): Promise<CursorPage<AttemptView>> {
    const phone = await this.phones.select(own, phoneId);
    const offset = offsetOf(paging);
    const { rows, total } = await this.webhooks.attempts(phone.phoneRef, id, deliveryId, { perPage: paging.limit, offset });
    return cursorPage(rows, paging, offsetCursor(offset, rows.length, total));
  }

  /** Sends a delivery again, whatever became of it, as a new attempt. */
  async redeliver(own: PhoneContext, phoneId: string | undefined, id: string, deliveryId: string): Promise<DeliveryView> {
    return this.webhooks.redeliver((await this.phones.select(own, phoneId)).phoneRef, id, deliveryId);
  }

  /** The phone a registration is for: the `phone_id` query's, else the key's; a `phone` in the body must be that phone's number. */
  private async targetPhone(own: PhoneContext, phoneId: string | undefined, given: string | undefined | null): Promise<PhoneContext> {
    const phone = await this.phones.select(own, phoneId);
    if (given !== undefined && given !== null && given.replace(/^\+/, '') !== phone.phone)
      throw new InvalidParameterException('phone', `must be ${phone.phone}, the number of phone id ${phone.phoneId}`);
    return phone;
  }

  /** The engine refuses unreachable targets too (422); the gateway names them in the network's 400 first. */
  private async checkEndpoint(endpoint: string): Promise<void> {
    const refusal = await this.targets.refusal(endpoint);
    if (refusal) throw new InvalidParameterException('endpoint', refusal);
  }

  private view(phone: PhoneContext, webhook: WebhookRecord): WebhookView {
    return {
      id: webhook.id,
      phone: phone.phone,
      phone_id: phone.phoneId,
      types: webhook.events,
      meta_version: META_VERSION,
      endpoint: webhook.url,
      create_date: webhook.created_at,
      update_date: webhook.updated_at,
      headers: webhook.headers,
    };
  }
}
