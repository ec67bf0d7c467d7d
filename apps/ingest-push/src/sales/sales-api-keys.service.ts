import { Injectable } from '@nestjs/common';
import { generateSecret, hashSecret } from '@app/auth';
import { Sql } from '@app/database';

export interface NewApiKey {
  /** The whole key, shown once. */
  key: string;
  id: string;
  accountId: string;
}

/** Mints sales API keys; each belongs to an account (a new one unless an existing one is named). */
@Injectable()
export class SalesApiKeysService {
  constructor(private readonly sql: Sql) {}

  async create(name: string, accountId?: string): Promise<NewApiKey> {
    const secret = generateSecret();
    return this.sql.transaction(async (tx) => {
      const account = accountId
        ? await tx.one<{ id: string }>('SELECT id FROM ingest_push.sales_accounts WHERE id = $1', [accountId])
        : await tx.one<{ id: string }>('INSERT INTO ingest_push.sales_accounts (name) VALUES ($1) RETURNING id', [name]);
      if (!account) throw new Error(`No sales account ${accountId}.`);
      const row = await tx.one<{ id: string }>(
        'INSERT INTO ingest_push.sales_api_keys (account_id, name, secret_hash) VALUES ($1, $2, $3) RETURNING id',
        [account.id, name, hashSecret(secret)],
      );
      return { key: `${row!.id}|${secret}`, id: row!.id, accountId: account.id };
    });
  }
}
