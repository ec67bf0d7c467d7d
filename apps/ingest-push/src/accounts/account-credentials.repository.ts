import { Sql } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';

export interface AccountCredentialSecret {
  account_id: string;
  secret_hash: Buffer;
  revoked: boolean;
}

/** One table of an account's hashed credentials (sales API keys, push tokens): same columns, same queries. */
export abstract class AccountCredentialsRepository {
  protected constructor(
    private readonly db: Sql,
    private readonly table: 'sales_api_keys' | 'push_tokens',
  ) {}

  findSecret(id: string): Promise<AccountCredentialSecret | null> {
    return this.db.one<AccountCredentialSecret>(
      `SELECT account_id, secret_hash, revoked_at IS NOT NULL AS revoked FROM ${INGEST_PUSH_SCHEMA}.${this.table} WHERE id = $1`,
      [id],
    );
  }

  async insert(id: string, accountId: string, name: string, secretHash: Buffer): Promise<void> {
    await this.db.rows(`INSERT INTO ${INGEST_PUSH_SCHEMA}.${this.table} (id, account_id, name, secret_hash) VALUES ($1, $2, $3, $4)`, [
      id,
      accountId,
      name,
      secretHash,
    ]);
  }

  /** Writes back when each credential was last used; a later time already stored (another replica's) is kept. */
  async touch(lastUsed: ReadonlyMap<string, Date>): Promise<void> {
    await this.db.rows(
      `UPDATE ${INGEST_PUSH_SCHEMA}.${this.table} t SET last_used_at = GREATEST(t.last_used_at, u.at)
       FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE t.id = u.id`,
      [[...lastUsed.keys()], [...lastUsed.values()].map((d) => d.toISOString())],
    );
  }
}
