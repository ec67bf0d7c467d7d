import { Injectable, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { CachedCredentialStore, credentialSource, isUuid, namedHeader, opaqueKey, type Principal } from '@app/auth';
import { Sql } from '@app/database';

/** Sales API keys read `sales_<key id>_<secret>`. */
export const SALES_KEY_PREFIX = 'sales';

/**
 * The `apiKey` header's store: keys looked up by id in `sales_api_keys`, secrets compared
 * as SHA-256 hashes in constant time, rows cached for 30 s (a revoked key stops working
 * within that), last use written in batches. The principal's owner is the key's account.
 */
@Injectable()
export class SalesApiKeyStore extends CachedCredentialStore<Principal> implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(sql: Sql) {
    super(
      {
        find: async (id) => {
          const row = await sql.one<{ account_id: string; secret_hash: Buffer; revoked: boolean }>(
            'SELECT account_id, secret_hash, revoked_at IS NOT NULL AS revoked FROM ingest_push.sales_api_keys WHERE id = $1',
            [id],
          );
          return row && { secretHash: row.secret_hash, active: !row.revoked, principal: { credentialId: id, ownerId: row.account_id } };
        },
        touch: async (lastUsed) => {
          await sql.rows(
            `UPDATE ingest_push.sales_api_keys k SET last_used_at = u.at
             FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE k.id = u.id`,
            [[...lastUsed.keys()], [...lastUsed.values()]],
          );
        },
      },
      { name: 'SalesApiKeyStore', cacheTtlMs: 30_000, lastUsedFlushMs: 10_000, normalizeId: (id) => (isUuid(id) ? id.toLowerCase() : null) },
    );
  }

  onApplicationBootstrap(): void {
    this.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}

/** `apiKey: sales_<id>_<secret>` checked by SalesApiKeyStore. */
export const SALES_API_KEY_SOURCE = credentialSource({
  header: namedHeader('apiKey'),
  parse: opaqueKey(SALES_KEY_PREFIX),
  store: SalesApiKeyStore,
  docs: { name: 'apiKey', scheme: { type: 'apiKey', in: 'header', name: 'apiKey', description: 'sales_<id>_<secret>' } },
});
