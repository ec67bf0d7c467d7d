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

/** Mints sales API keys; each belongs to an account. */
@Injectable()
export class SalesApiKeysService {
  constructor(private readonly sql: Sql) {}

  /**
   * A key of the account called `accountName`, created on first use. Names are not unique in
   * the table (keys minted without a name each had an account of their own): the oldest of
   * that name is the one; a lock on the name keeps two concurrent first uses to one account.
   */
  async createForAccountNamed(name: string, accountName: string): Promise<NewApiKey> {
    const id = randomUUID();
    const { key, secretHash } = mintOpaqueKey(SALES_KEY_PREFIX, id);
    return this.sql.transaction(async (tx) => {
      await tx.rows(`SELECT pg_advisory_xact_lock(hashtext('ingest_push.sales_accounts:' || $1))`, [accountName]);
      const account =
        (await tx.one<{ id: string }>('SELECT id FROM ingest_push.sales_accounts WHERE name = $1 ORDER BY created_at, id LIMIT 1', [accountName])) ??
        (await tx.one<{ id: string }>('INSERT INTO ingest_push.sales_accounts (name) VALUES ($1) RETURNING id', [accountName]))!;
      await tx.rows('INSERT INTO ingest_push.sales_api_keys (id, account_id, name, secret_hash) VALUES ($1, $2, $3, $4)', [id, account.id, name, secretHash]);
      return { key, id, accountId: account.id };
    });
  }

  /** A key of the account `accountId` (which must exist), or of a new account named `name`. */
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
