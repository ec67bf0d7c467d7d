import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { bearerHeader, CachedCredentialStore, credentialSource, mintOpaqueKey, opaqueKey, type Principal } from '@app/auth';
import type { AccountsRepository } from '../accounts/accounts.repository';
import { PushConfig } from './push.config';
import { PushTokensRepository } from './push-tokens.repository';

/** The name of the push credential source (routes opt in with `@AcceptCredentials(PUSH_CREDENTIALS)`). */
export const PUSH_CREDENTIALS = 'push-token';
/** Push tokens read `push_<token id>_<secret>`. */
const TOKEN_PREFIX = 'push';

/**
 * Push bearer tokens from `push_tokens` on the shared cached store: the id part is looked
 * up, the secret compared as a SHA-256 hash in constant time; rows cached for
 * PUSH_TOKEN_CACHE_TTL_SECONDS, last use written in batches.
 */
@Injectable()
export class PushTokenVerifier extends CachedCredentialStore<Principal> {
  constructor(tokens: PushTokensRepository, config: PushConfig) {
    super(
      {
        find: async (id) => {
          const row = await tokens.findSecret(id);
          return row && { secretHash: row.secret_hash, active: !row.revoked, principal: { credentialId: `push:${id}`, ownerId: row.account_id } };
        },
        touch: (lastUsed) => tokens.touch(lastUsed),
      },
      { name: PushTokenVerifier.name, cacheTtlMs: config.PUSH_TOKEN_CACHE_TTL_SECONDS * 1000 },
    );
  }
}

/** `Authorization: Bearer push_<id>_<secret>`, checked by PushTokenVerifier. */
export const pushCredentialSource = credentialSource({
  header: bearerHeader(),
  parse: opaqueKey(TOKEN_PREFIX),
  store: PushTokenVerifier,
  docs: { name: 'bearer', scheme: { type: 'http', scheme: 'bearer', description: 'push_<id>_<secret> (npm run -s push:token)' } },
  messages: {
    missing: 'Authentication is required: send the header Authorization: Bearer push_<id>_<secret> (a push token: npm run -s push:token).',
    invalid: 'The push token in the Authorization header (Bearer push_<id>_<secret>) is invalid or revoked.',
  },
});

/** Creates a token for the account named `accountName` (created if new); returns the token, shown only now. */
export async function issuePushToken(tokens: PushTokensRepository, accounts: AccountsRepository, accountName: string, name: string): Promise<string> {
  const accountId = await accounts.idNamed(accountName);
  const id = randomUUID();
  const { key, secretHash } = mintOpaqueKey(TOKEN_PREFIX, id);
  await tokens.insert(id, accountId, name, secretHash);
  return key;
}
