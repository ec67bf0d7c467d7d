import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';

export interface PushTokenSecret {
  account_id: string;
  secret_hash: Buffer;
  revoked: boolean;
}

/** Bearer tokens of accounts. */
@Injectable()
export class PushTokensRepository {
  constructor(private readonly db: Sql) {}

  findSecret(id: string): Promise<PushTokenSecret | null> {
    return this.db.one<PushTokenSecret>(
      `SELECT account_id, secret_hash, revoked_at IS NOT NULL AS revoked FROM ${INGEST_PUSH_SCHEMA}.push_tokens WHERE id = $1`,
      [id],
    );
  }

  async insert(id: string, accountId: string, name: string, secretHash: Buffer): Promise<void> {
    await this.db.rows(`INSERT INTO ${INGEST_PUSH_SCHEMA}.push_tokens (id, account_id, name, secret_hash) VALUES ($1, $2, $3, $4)`, [
      id,
      accountId,
      name,
      secretHash,
    ]);
  }

  async touch(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    await this.db.rows(
      `UPDATE ${INGEST_PUSH_SCHEMA}.push_tokens t SET last_used_at = GREATEST(t.last_used_at, u.at)
       FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE t.id = u.id`,
      [[...lastUsed.keys()], [...lastUsed.values()].map((d) => d.toISOString())],
    );
  }
}
