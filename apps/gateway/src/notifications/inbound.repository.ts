import { Injectable } from '@nestjs/common';
import { DAY_SECONDS, Pruner, type SqlRunner } from '@app/database';
import { NotificationsConfig } from './notifications.config';

/** Keys of inbound notifications already taken (the network may deliver one twice), for INBOUND_EVENT_RETENTION_DAYS. */
@Injectable()
export class InboundRepository {
  constructor(config: NotificationsConfig, pruner: Pruner) {
    pruner.register({ table: 'gateway.inbound_events', expired: 'received_at < cutoff', keepSeconds: () => config.INBOUND_EVENT_RETENTION_DAYS * DAY_SECONDS });
  }

  /** Which of `keys` were not seen before; they are now. */
  async takeNew(tx: SqlRunner, keys: string[]): Promise<Set<string>> {
    const rows = await tx.rows<{ key: string }>(`INSERT INTO gateway.inbound_events (key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING RETURNING key`, [
      keys,
    ]);
    return new Set(rows.map((r) => r.key));
  }
}
