import { Injectable } from '@nestjs/common';
import { bearerHeader, CachedCredentialStore, credentialSource, opaqueKey, type Principal } from '@app/auth';
import { PushConfig } from './push.config';
import { PushTokensRepository } from './push-tokens.repository';
import { TOKEN_PREFIX } from './push-token.issuer';

/** The name of the push credential source (routes opt in with `@AcceptCredentials(PUSH_CREDENTIALS)`). */
export const PUSH_CREDENTIALS = 'push-token';

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
          return (
            row && {
              secretHash: row.secret_hash,
              active: !row.revoked,
              principal: { credentialId: `push:${id}`, credentialName: row.name, ownerId: row.account_id },
            }
          );
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
