import { migrateDatabase, Sql } from '@app/database';
import { AccountsRepository } from '../accounts/accounts.repository';
import { DEFAULT_ACCOUNT, parseCredentialCliArgs, type CredentialCliArgs } from '../common/credential-cli-args';
import { INGEST_PUSH_SCHEMA } from '../common/ingest-push.schema';
import { createIngestPushDataSource } from '../database/ingest-push.data-source';
import { issuePushToken } from './push-token-verifier.service';
import { PushTokensRepository } from './push-tokens.repository';

/** Creates a push token of the named account (created on first use) in the database at `databaseUrl`, migrating it first; returns the token. */
export async function createPushTokenFromCli(databaseUrl: string, args: CredentialCliArgs): Promise<string> {
  const dataSource = await createIngestPushDataSource(databaseUrl).initialize();
  try {
    await migrateDatabase(dataSource, INGEST_PUSH_SCHEMA);
    const sql = new Sql(dataSource);
    return await issuePushToken(new PushTokensRepository(sql), new AccountsRepository(sql), args.account ?? DEFAULT_ACCOUNT, args.name);
  } finally {
    await dataSource.destroy();
  }
}

/** `npm run -s push:token -- [--name N] [--account A]` (node tools/app-cli.js ingest-push push/push-token.cli): prints only the token. */
export const cli = { parse: parseCredentialCliArgs, run: createPushTokenFromCli };
