import { Injectable } from '@nestjs/common';
import type { SqlRunner } from '@app/database';
import { splitRecorded, WebhookEvents } from '@app/webhooks';
import { NotificationOutbox } from '../notifications/notification.outbox';
import type { NetworkNotification } from '../notifications/network-notification';

/** Notifications into the shared engine's outbox, inside the caller's transaction. */
@Injectable()
export class NetworkNotificationOutbox extends NotificationOutbox {
  constructor(private readonly events: WebhookEvents) {
    super();
  }

  async record(tx: SqlRunner, phoneRef: string, type: string, body: NetworkNotification): Promise<number> {
    const statement = this.events.withEvents(`n AS (SELECT $1::text AS owner, $2::jsonb AS notification)`, { rows: 'n', ownerColumn: 'owner', eventType: () => '$3' });
    return splitRecorded(await tx.rows<Record<string, unknown>>(statement, [phoneRef, JSON.stringify(body), type])).deliveries;
  }

  recorded(deliveries: number): void {
    this.events.recorded(deliveries);
  }
}
