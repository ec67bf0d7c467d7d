import { Injectable } from '@nestjs/common';
import { TtlCache } from './webhook-cache';
import { WebhookServiceConfig } from './webhook.config';
import { WebhooksRepository, type DeliveryTarget } from './webhooks.repository';

/**
 * What this process knows about webhooks, cached for WEBHOOK_CACHE_SECONDS: which
 * events a client's active webhooks want (so reads cost nothing without a read
 * subscriber), and each webhook's delivery target. Changes made through this process
 * evict at once; other replicas see them within the cache lifetime.
 */
@Injectable()
export class WebhookSubscriptions {
  private readonly events: TtlCache<Set<string>>;
  private readonly targets: TtlCache<DeliveryTarget | null>;

  constructor(
    private readonly repository: WebhooksRepository,
    config: WebhookServiceConfig,
  ) {
    this.events = new TtlCache(config.WEBHOOK_CACHE_SECONDS * 1000);
    this.targets = new TtlCache(config.WEBHOOK_CACHE_SECONDS * 1000);
  }

  async wants(clientId: string, eventType: string): Promise<boolean> {
    return (await this.events.get(clientId, async () => new Set(await this.repository.subscribedEvents(clientId)))).has(eventType);
  }

  target(webhookId: string): Promise<DeliveryTarget | null> {
    return this.targets.get(webhookId, () => this.repository.target(webhookId));
  }

  changed(clientId: string, webhookId: string): void {
    this.events.evict(clientId);
    this.targets.evict(webhookId);
  }
}
