import { migrateDatabase, Sql } from '@app/database';
import { AccountsRepository } from '../accounts/accounts.repository';
import { DEFAULT_ACCOUNT, parseCredentialCliArgs, type CredentialCliArgs } from '../common/credential-cli-args';
import { INGEST_PUSH_SCHEMA } from '../common/ingest-push.schema';
import { createIngestPushDataSource } from '../database/ingest-push.data-source';
import { SalesApiKeysService } from './sales-api-keys.service';

/** Creates a key of the named account (created on first use) in the database at `databaseUrl`, migrating it first; returns the key. */
export async function createApiKeyFromCli(databaseUrl: string, args: CredentialCliArgs): Promise<string> {
  const dataSource = await createIngestPushDataSource(databaseUrl).initialize();
  try {
    await migrateDatabase(dataSource, INGEST_PUSH_SCHEMA);
    const sql = new Sql(dataSource);
    return (await new SalesApiKeysService(sql, new AccountsRepository(sql)).createForAccountNamed(args.name, args.account ?? DEFAULT_ACCOUNT)).key;
  } finally {
    await dataSource.destroy();
  }
}

/** `npm run -s ingest:apikey -- [--name N] [--account A]` (node tools/app-cli.js ingest-push sales/sales-api-key.cli): prints only the key. */
export const cli = { parse: parseCredentialCliArgs, run: createApiKeyFromCli };
