import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';

export interface SalesApiKeySecret {
  account_id: string;
  secret_hash: Buffer;
  revoked: boolean;
}

/** Sales API keys of accounts. */
@Injectable()
export class SalesApiKeysRepository {
  constructor(private readonly db: Sql) {}

  findSecret(id: string): Promise<SalesApiKeySecret | null> {
    return this.db.one<SalesApiKeySecret>(
      `SELECT account_id, secret_hash, revoked_at IS NOT NULL AS revoked FROM ${INGEST_PUSH_SCHEMA}.sales_api_keys WHERE id = $1`,
      [id],
    );
  }

  async insert(id: string, accountId: string, name: string, secretHash: Buffer): Promise<void> {
    await this.db.rows(`INSERT INTO ${INGEST_PUSH_SCHEMA}.sales_api_keys (id, account_id, name, secret_hash) VALUES ($1, $2, $3, $4)`, [
      id,
      accountId,
      name,
      secretHash,
    ]);
  }

  async touch(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    await this.db.rows(
      `UPDATE ${INGEST_PUSH_SCHEMA}.sales_api_keys k SET last_used_at = u.at
       FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE k.id = u.id`,
      [[...lastUsed.keys()], [...lastUsed.values()]],
    );
  }
}
