import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { mintOpaqueKey } from '@app/auth';
import { Sql } from '@app/database';
import { SALES_KEY_PREFIX } from './sales-api-key.store';

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
    const id = randomUUID();
    const { key, secretHash } = mintOpaqueKey(SALES_KEY_PREFIX, id);
    return this.sql.transaction(async (tx) => {
      const account = accountId
        ? await tx.one<{ id: string }>('SELECT id FROM ingest_push.sales_accounts WHERE id = $1', [accountId])
        : await tx.one<{ id: string }>('INSERT INTO ingest_push.sales_accounts (name) VALUES ($1) RETURNING id', [name]);
      if (!account) throw new Error(`There is no sales account ${accountId}.`);
      await tx.rows('INSERT INTO ingest_push.sales_api_keys (id, account_id, name, secret_hash) VALUES ($1, $2, $3, $4)', [id, account.id, name, secretHash]);
      return { key, id, accountId: account.id };
    });
  }
}
