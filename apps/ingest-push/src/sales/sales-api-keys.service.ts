import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { mintOpaqueKey } from '@app/auth/secret';
import { Sql } from '@app/database';
import { AccountsRepository } from '../accounts/accounts.repository';

/** Sales API keys read `sales_<key id>_<secret>`. */
export const SALES_KEY_PREFIX = 'sales';

export interface NewApiKey {
  /** The whole key, shown once. */
  key: string;
  id: string;
  accountId: string;
}

/** Mints sales API keys; each belongs to an account. */
@Injectable()
export class SalesApiKeysService {
  constructor(
    private readonly sql: Sql,
    private readonly accounts: AccountsRepository,
  ) {}

  /** A key of the account called `accountName`, created on first use. */
  async createForAccountNamed(name: string, accountName: string): Promise<NewApiKey> {
    const accountId = await this.accounts.idNamed(accountName);
    const id = randomUUID();
    const { key, secretHash } = mintOpaqueKey(SALES_KEY_PREFIX, id);
    await this.sql.rows('INSERT INTO ingest_push.sales_api_keys (id, account_id, name, secret_hash) VALUES ($1, $2, $3, $4)', [id, accountId, name, secretHash]);
    return { key, id, accountId };
  }
}
