import { Injectable } from '@nestjs/common';
import { OutboxRelay } from './outbox-relay.service';
import { WebhookSubscriptions } from './webhook-subscriptions.service';
import { WebhooksRepository } from './webhooks.repository';

/**
 * How a service reports events. Writes record theirs inside their own statement
 * (`recordEventsCte`) and then call `recorded`; reads, which have no transaction to
 * join, call `emit`, which does nothing unless an active webhook of the client wants
 * the event.
 */
@Injectable()
export class WebhookEvents {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly relay: OutboxRelay,
  ) {}

  /** Call after the write committed: wakes the relay when it recorded deliveries. */
  recorded(deliveries: number): void {
    if (deliveries > 0) this.relay.kick();
  }

  async emit(clientId: string, eventType: string, items: readonly unknown[]): Promise<void> {
    if (items.length === 0 || !(await this.subscriptions.wants(clientId, eventType))) return;
    this.recorded(await this.repository.recordEvents(clientId, eventType, [...items]));
  }
}
