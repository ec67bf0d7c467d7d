import { migrateDatabase, Sql } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.entities';
import { createIngestPushDataSource } from '../database/ingest-push.data-source';
import { issuePushToken } from './push-token-verifier.service';
import { PushTokensRepository } from './push-tokens.repository';

export interface PushTokenCliArgs {
  account: string;
  name: string;
}

/** `[--name N] [--account A]`; throws an Error with one sentence when they are wrong. */
export function parsePushTokenCliArgs(argv: string[]): PushTokenCliArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (!['--name', '--account'].includes(flag) || value === undefined) throw new Error(`Unexpected argument "${flag}"; usage: [--name N] [--account A].`);
    if (value.trim() === '' || value.length > 255) throw new Error(`${flag} must be 1 to 255 characters.`);
    values.set(flag, value.trim());
  }
  return { account: values.get('--account') ?? 'default', name: values.get('--name') ?? 'cli' };
}

/** Creates a push token in the database at `databaseUrl` (migrating it first) and returns it. */
export async function createPushTokenFromCli(databaseUrl: string, args: PushTokenCliArgs): Promise<string> {
  const dataSource = await createIngestPushDataSource(databaseUrl).initialize();
  try {
    await migrateDatabase(dataSource, INGEST_PUSH_SCHEMA);
    return await issuePushToken(new PushTokensRepository(new Sql(dataSource)), args.account, args.name);
  } finally {
    await dataSource.destroy();
  }
}

/** `npm run -s push:token -- [--name N] [--account A]` (node tools/app-cli.js ingest-push push/push-token.cli): prints only the token. */
export const cli = { parse: parsePushTokenCliArgs, run: createPushTokenFromCli };
