import { Injectable } from '@nestjs/common';
import { CachedCredentialStore } from '@app/auth';
import { TokensConfig } from './tokens.config';
import type { DocstorePrincipal } from './docstore-principal';
import { TokensRepository } from './tokens.repository';

/**
 * The docstore's credential store: `<id>|<secret>` tokens from `docstore.tokens`, on the
 * shared cached store. Rows are cached for TOKEN_CACHE_TTL_SECONDS (changes made in this
 * process evict at once; other replicas see them when their entry expires), and
 * last_used_at is written in one statement every TOKEN_LAST_USED_FLUSH_SECONDS.
 */
@Injectable()
export class TokenVerifier extends CachedCredentialStore<DocstorePrincipal> {
  constructor(tokens: TokensRepository, config: TokensConfig) {
    super(
      {
        find: async (id) => {
          const row = await tokens.findSecret(id);
          return (
            row && {
              secretHash: row.secret_hash,
              active: row.status === 'active',
              expiresAt: row.expires_at,
              principal: { credentialId: id, credentialName: row.name, ownerId: row.client_id, scopes: row.scopes },
            }
          );
        },
        touch: (lastUsed) => tokens.touch(lastUsed),
      },
      {
        name: TokenVerifier.name,
        cacheTtlMs: config.TOKEN_CACHE_TTL_SECONDS * 1000,
        lastUsedFlushMs: config.TOKEN_LAST_USED_FLUSH_SECONDS * 1000,
      },
    );
  }
}
