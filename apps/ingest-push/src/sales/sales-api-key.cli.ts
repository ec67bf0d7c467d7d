import { isUuid } from '@app/auth';
import { migrateDatabase, Sql } from '@app/database';
import { createIngestPushDataSource } from '../database/ingest-push.data-source';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.entities';
import { SalesApiKeysService } from './sales-api-keys.service';

export interface ApiKeyCliArgs {
  name: string;
  account?: string;
}

/** `[--name N] [--account <uuid>]`; throws an Error with one sentence when they are wrong. */
export function parseApiKeyCliArgs(argv: string[]): ApiKeyCliArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (!['--name', '--account'].includes(flag) || value === undefined) {
      throw new Error(`Unexpected argument "${flag}"; usage: [--name N] [--account <account uuid>].`);
    }
    values.set(flag, value);
  }
  const account = values.get('--account');
  if (account !== undefined && !isUuid(account)) throw new Error('--account must be the UUID of an existing sales account.');
  return { name: values.get('--name') ?? 'cli', account: account?.toLowerCase() };
}

/** Creates a key (and a new account unless `--account` names one) in the database at `databaseUrl`, migrating it first; returns the key. */
export async function createApiKeyFromCli(databaseUrl: string, args: ApiKeyCliArgs): Promise<string> {
  const dataSource = await createIngestPushDataSource(databaseUrl).initialize();
  try {
    await migrateDatabase(dataSource, INGEST_PUSH_SCHEMA);
    return (await new SalesApiKeysService(new Sql(dataSource)).create(args.name, args.account)).key;
  } finally {
    await dataSource.destroy();
  }
}

/** `npm run -s ingest:apikey -- [--name N] [--account A]` (node tools/app-cli.js ingest-push sales/sales-api-key.cli): prints only the key. */
export const cli = { parse: parseApiKeyCliArgs, run: createApiKeyFromCli };
