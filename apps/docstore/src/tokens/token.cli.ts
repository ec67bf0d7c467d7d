import { isUuid } from '@app/auth';
import { migrateDatabase, Sql } from '@app/database';
import { DOCSTORE_SCHEMA } from '../database/docstore.entities';
import { createDocstoreDataSource } from '../database/docstore.data-source';
import { DOCSTORE_SCOPES } from './docstore-scopes';
import { tokenScopesProblem } from './token-scopes.validator';
import { TokensRepository } from './tokens.repository';
import { issueToken } from './tokens.service';
import type { TokenScopes } from './token-scopes';

export interface TokenCliArgs {
  client: string;
  name: string;
  scopes: TokenScopes;
  expiresAt: string | null;
}

/** `--client <uuid> [--name N] [--scopes a,b|*] [--expires-at ISO]`; throws an Error with one sentence when they are wrong. */
export function parseTokenCliArgs(argv: string[]): TokenCliArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (!['--client', '--name', '--scopes', '--expires-at'].includes(flag) || value === undefined) {
      throw new Error(`Unexpected argument "${flag}"; usage: --client <uuid> [--name N] [--scopes a,b|*] [--expires-at ISO].`);
    }
    values.set(flag, value);
  }
  const client = values.get('--client') ?? '';
  if (!isUuid(client)) throw new Error('--client must be the UUID of the client the token acts for.');
  const scopesArg = values.get('--scopes') ?? '*';
  const scopes = scopesArg === '*' ? [...DOCSTORE_SCOPES] : scopesArg.split(',').map((s) => s.trim());
  const problem = tokenScopesProblem(scopes);
  if (problem) throw new Error(problem);
  const expiresAt = values.get('--expires-at') ?? null;
  if (expiresAt !== null && Number.isNaN(Date.parse(expiresAt))) throw new Error('--expires-at must be an ISO 8601 timestamp.');
  return { client: client.toLowerCase(), name: values.get('--name') ?? 'cli', scopes, expiresAt };
}

/** Creates a token in the database at `databaseUrl` (migrating it first) and returns its plain text. */
export async function createTokenFromCli(databaseUrl: string, args: TokenCliArgs): Promise<string> {
  const dataSource = await createDocstoreDataSource(databaseUrl).initialize();
  try {
    await migrateDatabase(dataSource, DOCSTORE_SCHEMA);
    const tokens = new TokensRepository(new Sql(dataSource));
    return (await issueToken(tokens, args.client, args.name, args.scopes, args.expiresAt)).plainText;
  } finally {
    await dataSource.destroy();
  }
}

/** `npm run -s docstore:token -- …` (node tools/app-cli.js docstore tokens/token.cli): prints only the new token. */
export const cli = { parse: parseTokenCliArgs, run: createTokenFromCli };
