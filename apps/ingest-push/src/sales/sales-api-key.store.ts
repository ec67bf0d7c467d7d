import { Injectable } from '@nestjs/common';
import { CachedCredentialStore, credentialSource, namedHeader, opaqueKey, type Principal } from '@app/auth';
import { SalesConfig } from './sales.config';
import { SALES_KEY_PREFIX } from './sales-api-key.issuer';
import { SalesApiKeysRepository } from './sales-api-keys.repository';

/**
 * The `apiKey` header's store: keys looked up by id in `sales_api_keys`, secrets compared
 * as SHA-256 hashes in constant time, rows cached for SALES_API_KEY_CACHE_TTL_SECONDS (a
 * revoked key stops working within that), last use written in batches. The principal's owner is the key's account.
 */
@Injectable()
export class SalesApiKeyStore extends CachedCredentialStore<Principal> {
  constructor(keys: SalesApiKeysRepository, config: SalesConfig) {
    super(
      {
        find: async (id) => {
          const row = await keys.findSecret(id);
          return (
            row && { secretHash: row.secret_hash, active: !row.revoked, principal: { credentialId: id, credentialName: row.name, ownerId: row.account_id } }
          );
        },
        touch: (lastUsed) => keys.touch(lastUsed),
      },
      { name: SalesApiKeyStore.name, cacheTtlMs: config.SALES_API_KEY_CACHE_TTL_SECONDS * 1000, lastUsedFlushMs: 10_000 },
    );
  }
}

/** `apiKey: sales_<id>_<secret>` checked by SalesApiKeyStore. */
export const SALES_API_KEY_SOURCE = credentialSource({
  header: namedHeader('apiKey'),
  parse: opaqueKey(SALES_KEY_PREFIX),
  store: SalesApiKeyStore,
  docs: { name: 'apiKey', scheme: { type: 'apiKey', in: 'header', name: 'apiKey', description: 'sales_<id>_<secret>' } },
});
