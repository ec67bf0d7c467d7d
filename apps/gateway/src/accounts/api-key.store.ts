import { Injectable } from '@nestjs/common';
import { CachedCredentialStore } from '@app/auth';
import { SecretCipher } from '@app/secrets';
import { AccountsConfig } from './accounts.config';
import type { PhoneContext } from '../network/chat-provider';
import { AccountsRepository, type PhoneRow } from './accounts.repository';
import type { GatewayPrincipal } from './gateway-principal';

/**
 * The `apikey` credential store on the shared cached store: the secret's SHA-256
 * compared in constant time, the key's row and its phone (with the account's access
 * token decrypted) cached for APIKEY_CACHE_TTL_SECONDS, last use written in batches.
 */
@Injectable()
export class ApiKeyStore extends CachedCredentialStore<GatewayPrincipal> {
  constructor(
    accounts: AccountsRepository,
    config: AccountsConfig,
    private readonly cipher: SecretCipher,
  ) {
    super(
      {
        find: async (id) => {
          const row = await accounts.findKey(id);
          return (
            row && {
              secretHash: row.secret_hash,
              active: true,
              principal: { credentialId: id, credentialName: row.name, ownerId: row.account_id, phone: this.phoneContext(row) },
            }
          );
        },
        touch: (lastUsed) => accounts.touch(lastUsed),
      },
      { name: ApiKeyStore.name, cacheTtlMs: config.APIKEY_CACHE_TTL_SECONDS * 1000 },
    );
  }

  /** The phone context of a row: the account's access token decrypted. */
  phoneContext(row: PhoneRow): PhoneContext {
    return {
      accountId: row.account_id,
      phoneRef: row.phone_ref,
      phone: row.phone,
      phoneId: row.phone_id,
      wabaId: row.waba_id,
      accessToken: row.access_token === null ? null : this.cipher.decrypt(row.access_token),
    };
  }
}
