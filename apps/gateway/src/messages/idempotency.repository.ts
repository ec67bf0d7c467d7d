import { Injectable } from '@nestjs/common';
import { Pruner, Sql } from '@app/database';
import { MessagesConfig } from './messages.config';

export type Claim = { kind: 'claimed' } | { kind: 'done'; response: unknown } | { kind: 'pending' } | { kind: 'mismatch' };

/** Idempotency keys of message sends, per phone, remembered for IDEMPOTENCY_TTL_SECONDS; the Pruner deletes expired ones. */
@Injectable()
export class IdempotencyRepository {
  constructor(
    private readonly sql: Sql,
    config: MessagesConfig,
    pruner: Pruner,
  ) {
    pruner.register({ table: 'gateway.idempotency_keys', expired: 'created_at < cutoff', keepSeconds: () => config.IDEMPOTENCY_TTL_SECONDS });
  }

  /** Takes the key for this request, or says what the first request with it did. Expired keys are taken over. */
  async claim(phoneRef: string, key: string, requestHash: Buffer, ttlSeconds: number): Promise<Claim> {
    const claimed = await this.sql.one<{ key: string }>(
      `INSERT INTO gateway.idempotency_keys AS k (phone_ref, key, request_hash) VALUES ($1, $2, $3)
       ON CONFLICT (phone_ref, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, response = NULL, created_at = now()
        WHERE k.created_at < now() - make_interval(secs => $4)
       RETURNING key`,
      [phoneRef, key, requestHash, ttlSeconds],
    );
    if (claimed) return { kind: 'claimed' };
    const row = await this.sql.one<{ request_hash: Buffer; response: unknown }>(
      `SELECT request_hash, response FROM gateway.idempotency_keys WHERE phone_ref = $1 AND key = $2`,
      [phoneRef, key],
    );
    if (!row) return this.claim(phoneRef, key, requestHash, ttlSeconds);
    if (!row.request_hash.equals(requestHash)) return { kind: 'mismatch' };
    return row.response === null ? { kind: 'pending' } : { kind: 'done', response: row.response };
  }

  async complete(phoneRef: string, key: string, response: unknown): Promise<void> {
    await this.sql.rows(`UPDATE gateway.idempotency_keys SET response = $3 WHERE phone_ref = $1 AND key = $2`, [phoneRef, key, JSON.stringify(response)]);
  }

  /** A send that failed leaves no trace: the client may retry with the same key. */
  async release(phoneRef: string, key: string): Promise<void> {
    await this.sql.rows(`DELETE FROM gateway.idempotency_keys WHERE phone_ref = $1 AND key = $2 AND response IS NULL`, [phoneRef, key]);
  }
}
