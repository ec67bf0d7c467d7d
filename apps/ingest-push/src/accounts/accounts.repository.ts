import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';

/** Accounts, found by name. */
@Injectable()
export class AccountsRepository {
  constructor(private readonly db: Sql) {}

  /**
   * The id of the account called `name`, created on first use. One statement against the
   * unique name, so concurrent first uses of a name all get the same account. The no-op
   * update makes the existing row come back through RETURNING.
   */
  async idNamed(name: string): Promise<string> {
    const row = await this.db.one<{ id: string }>(
      `INSERT INTO ${INGEST_PUSH_SCHEMA}.accounts (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id`,
      [name],
    );
    return row!.id;
  }
}
