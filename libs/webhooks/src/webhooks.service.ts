import { Injectable } from '@nestjs/common';
import { isUuid } from '@app/auth';
import { ValidationFailedException } from '@app/errors';
import type { PageQuery } from '@app/pagination';
import { OutboxRelay } from './outbox-relay.service';
import { WebhookServiceConfig } from './webhook.config';
import type { WebhookStatus } from './webhook.entity';
import { generateWebhookSecret } from './webhook-signature';
import { WebhookSubscriptions } from './webhook-subscriptions.service';
import { TargetPolicy } from './webhook-target';
import {
  DeliveryNotFoundException, DeliveryQueuedException, WebhookInactiveException, WebhookNotFoundException, WebhookUrlTakenException,
} from './webhooks.exception';
import { WebhooksRepository, type DeliveryView, type WebhookChanges, type WebhookView } from './webhooks.repository';

export interface NewWebhook {
  url: string;
  events: string[];
  status?: WebhookStatus;
}

/** Registration, secret rotation and the delivery log, for one client at a time. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly relay: OutboxRelay,
    private readonly policy: TargetPolicy,
    private readonly config: WebhookServiceConfig,
  ) {}

  /** Returns the webhook with its signing secret: the only time the secret is shown. */
  async create(clientId: string, input: NewWebhook): Promise<WebhookView & { secret: string }> {
    await this.assertTarget(input.url);
    const secret = generateWebhookSecret();
    const webhook = await this.repository.insert(clientId, input.url, unique(input.events), input.status ?? 'active', secret);
    if (!webhook) throw new WebhookUrlTakenException();
    this.subscriptions.changed(clientId, webhook.id);
    return { ...webhook, secret };
  }

  async get(clientId: string, id: string): Promise<WebhookView> {
    const webhook = isUuid(id) ? await this.repository.find(clientId, id) : null;
    if (!webhook) throw new WebhookNotFoundException();
    return webhook;
  }

  list(clientId: string, page: PageQuery): Promise<{ rows: WebhookView[]; total: number }> {
    return this.repository.list(clientId, page.perPage, page.offset);
  }

  async update(clientId: string, id: string, changes: WebhookChanges): Promise<WebhookView> {
    await this.get(clientId, id);
    if (changes.url !== undefined) await this.assertTarget(changes.url);
    const webhook = await this.repository
      .update(clientId, id, { ...changes, events: changes.events && unique(changes.events) })
      .catch((error: { code?: string }) => {
        throw error.code === '23505' ? new WebhookUrlTakenException() : error;
      });
    if (!webhook) throw new WebhookNotFoundException();
    this.subscriptions.changed(clientId, id);
    return webhook;
  }

  async delete(clientId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.repository.delete(clientId, id))) throw new WebhookNotFoundException();
    this.subscriptions.changed(clientId, id);
  }

  /** A new secret, shown once; the old one keeps signing for WEBHOOK_SECRET_GRACE_SECONDS. */
  async rotateSecret(clientId: string, id: string) {
    const secret = generateWebhookSecret();
    const webhook = isUuid(id) ? await this.repository.rotate(clientId, id, secret, this.config.WEBHOOK_SECRET_GRACE_SECONDS) : null;
    if (!webhook) throw new WebhookNotFoundException();
    this.subscriptions.changed(clientId, id);
    return { ...webhook, secret };
  }

  async deliveries(clientId: string, id: string, page: PageQuery): Promise<{ rows: DeliveryView[]; total: number }> {
    await this.get(clientId, id);
    return this.repository.deliveries(id, page.perPage, page.offset);
  }

  /** Sends a delivery again, whatever became of it, as a new attempt with the same event id. */
  async redeliver(clientId: string, id: string, deliveryId: string): Promise<DeliveryView> {
    const webhook = await this.get(clientId, id);
    if (!isUuid(deliveryId) || !(await this.repository.deliveryExists(id, deliveryId))) throw new DeliveryNotFoundException();
    if (webhook.status !== 'active') throw new WebhookInactiveException();
    // Matches nothing while a job for it is in the queue.
    const again = await this.repository.redeliver(id, deliveryId);
    if (!again) throw new DeliveryQueuedException();
    this.relay.kick();
    return again;
  }

  private async assertTarget(url: string): Promise<void> {
    const refusal = await this.policy.refusal(url);
    if (refusal) throw ValidationFailedException.of('url', refusal);
  }
}

function unique(events: string[]): string[] {
  return [...new Set(events)];
}
