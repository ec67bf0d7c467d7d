import { Injectable } from '@nestjs/common';
import type { SqlRunner } from '@app/database';

/** Keys of inbound notifications already taken (the network may deliver one twice). */
@Injectable()
export class InboundRepository {
  /** Which of `keys` were not seen before; they are now. */
  async takeNew(tx: SqlRunner, keys: string[]): Promise<Set<string>> {
    const rows = await tx.rows<{ key: string }>(`INSERT INTO gateway.inbound_events (key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING RETURNING key`, [keys]);
    return new Set(rows.map((r) => r.key));
  }
}
