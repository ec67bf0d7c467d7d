import { Injectable } from '@nestjs/common';
import { SecretCipher } from '@app/secrets';
import { TtlCache } from './webhook-cache';
import { openHeaders } from './webhook-headers';
import { WebhookServiceConfig } from './webhook.config';
import { WebhookRegistrationsRepository, type StoredTarget } from './webhook-registrations.repository';

/** What a delivery attempt needs to know about its webhook, secrets and header values readable. */
export type DeliveryTarget = StoredTarget;

/**
 * What this process knows about webhooks, cached for WEBHOOK_CACHE_SECONDS: which
 * events an owner's active webhooks want (so reads cost nothing without a read
 * subscriber), and each webhook's delivery target. Changes made through this process
 * evict at once; other replicas see them within the cache lifetime.
 */
@Injectable()
export class WebhookSubscriptions {
  private readonly events: TtlCache<Set<string>>;
  private readonly targets: TtlCache<DeliveryTarget | null>;

  constructor(
    private readonly registrations: WebhookRegistrationsRepository,
    private readonly cipher: SecretCipher,
    config: WebhookServiceConfig,
  ) {
    this.events = new TtlCache(config.WEBHOOK_CACHE_SECONDS * 1000);
    this.targets = new TtlCache(config.WEBHOOK_CACHE_SECONDS * 1000);
  }

  /** Whether an active webhook of `owner` wants the event; answered at once while the owner's subscriptions are cached. */
  wants(owner: string, eventType: string): boolean | Promise<boolean> {
    const cached = this.events.peek(owner);
    if (cached) return cached.value.has(eventType);
    return this.events.get(owner, async () => new Set(await this.registrations.subscribedEvents(owner))).then((events) => events.has(eventType));
  }

  target(webhookId: string): Promise<DeliveryTarget | null> {
    return this.targets.get(webhookId, async () => {
      const stored = await this.registrations.target(webhookId);
      // A row written before its secrets were encrypted (an older replica during a rollout) is read as it is.
      return (
        stored && {
          ...stored,
          secrets: stored.secrets.map((s) => (SecretCipher.isCiphertext(s) ? this.cipher.decrypt(s) : s)),
          headers: openHeaders(this.cipher, stored.headers),
        }
      );
    });
  }

  changed(owner: string, webhookId: string): void {
    this.events.evict(owner);
    this.targets.evict(webhookId);
  }
}
