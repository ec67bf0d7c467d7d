import { auditRecorder, CLI_ACTOR } from '@app/audit/recorder';
import { isUuid } from '@app/auth/uuid';
import { defineCommand } from '@app/database';
import { clientIdOf } from '../address/client-id.param';
import { DOCSTORE_SCHEMA } from '../database/docstore.schema';
import { DOCSTORE_SCOPES } from '../tokens/docstore-scopes';
import { tokenScopesProblem } from '../tokens/token-scopes.validator';
import { TokensRepository } from '../tokens/tokens.repository';
import { issueToken } from '../tokens/token.issuer';

/** `token --client <uuid> [--name N] [--scopes a,b|*] [--expires-at ISO]`: prints only the new token. */
export const TOKEN_COMMAND = defineCommand({
  name: 'token',
  summary: 'Mint a docstore token (`<id>|<secret>`, shown once).',
  options: {
    client: { value: 'uuid', description: 'the client the token acts for', required: true },
    name: { value: 'name', description: 'a label (default cli)' },
    scopes: { value: 'a,b|*', description: 'comma-separated scopes, * for all (default *)' },
    'expires-at': { value: 'ISO 8601', description: 'when the token stops working (default never)' },
  },
  parse: (values) => {
    const client = values.client ?? '';
    if (!isUuid(client)) throw new Error('--client must be the UUID of the client the token acts for.');
    const scopesArg = values.scopes ?? '*';
    const scopes = scopesArg === '*' ? [...DOCSTORE_SCOPES] : scopesArg.split(',').map((s) => s.trim());
    const problem = tokenScopesProblem(scopes);
    if (problem) throw new Error(problem);
    const expiresAt = values['expires-at'] ?? null;
    if (expiresAt !== null && Number.isNaN(Date.parse(expiresAt))) throw new Error('--expires-at must be an ISO 8601 timestamp.');
    return { client: clientIdOf(client), name: values.name ?? 'cli', scopes, expiresAt };
  },
  run: async (sql, args) => {
    const db = { sql, audit: auditRecorder(DOCSTORE_SCHEMA), actor: CLI_ACTOR };
    return (await issueToken(new TokensRepository(sql), db, args.client, args.name, args.scopes, args.expiresAt)).plainText;
  },
});
