import { audited, auditRecorder, CLI_ACTOR } from '@app/audit/recorder';
import { Sql } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';

export interface AccountCredentialSecret {
  account_id: string;
  name: string;
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
      `SELECT account_id, name, secret_hash, revoked_at IS NOT NULL AS revoked FROM ${INGEST_PUSH_SCHEMA}.${this.table} WHERE id = $1`,
      [id],
    );
  }

  /** Credentials are issued by the command line only: the row and its audit record (actor `cli`) commit together. */
  async insert(id: string, accountId: string, name: string, secretHash: Buffer): Promise<void> {
    await audited(this.db, auditRecorder(INGEST_PUSH_SCHEMA), CLI_ACTOR, async (tx, record) => {
      await tx.rows(`INSERT INTO ${INGEST_PUSH_SCHEMA}.${this.table} (id, account_id, name, secret_hash) VALUES ($1, $2, $3, $4)`, [
        id,
        accountId,
        name,
        secretHash,
      ]);
      const target = this.table === 'sales_api_keys' ? 'api_key' : 'push_token';
      await record({
        tenantId: accountId,
        action: `${target}.created`,
        targetType: target,
        targetId: id,
        after: { name },
      });
    });
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
