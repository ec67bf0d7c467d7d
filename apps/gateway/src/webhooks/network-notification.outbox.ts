import { Injectable } from '@nestjs/common';
import type { SqlRunner } from '@app/database';
import { splitRecorded, WebhookEvents } from '@app/webhooks';
import type { NetworkNotification } from '../network/network-notification';

/**
 * Where notifications for registered webhooks go: recorded in the caller's transaction
 * (the shared engine's outbox), delivered after commit.
 */
@Injectable()
export class NetworkNotificationOutbox {
  constructor(private readonly events: WebhookEvents) {}

  /** Records `body` for every webhook of the phone subscribed to `type`; returns how many deliveries were recorded. */
  async record(tx: SqlRunner, phoneRef: string, type: string, body: NetworkNotification): Promise<number> {
    const statement = this.events.withEvents(`n AS (SELECT $1::text AS owner, $2::jsonb AS notification)`, {
      rows: 'n',
      ownerColumn: 'owner',
      eventType: () => '$3',
    });
    return splitRecorded(await tx.rows<Record<string, unknown>>(statement, [phoneRef, JSON.stringify(body), type])).deliveries;
  }

  /** Call after the transaction committed. */
  recorded(deliveries: number): void {
    this.events.recorded(deliveries);
  }
}
