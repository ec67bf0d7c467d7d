import { randomUUID } from 'node:crypto';
import { mintOpaqueKey } from '@app/auth/secret';
import type { SecretCipher } from '@app/secrets';
import type { AccountsRepository } from './accounts.repository';

/** API keys are `gw_<id>_<secret>`. */
export const API_KEY_PREFIX = 'gw';

export interface NewApiKey {
  phone: string;
  phoneId: string;
  name: string;
  accessToken?: string;
  wabaId?: string;
}

/** Mints a key (`gw_<id>_<secret>`) of the phone (created with its account on first use); the access token is stored encrypted. Returns the key, shown once. */
export async function mintApiKey(accounts: AccountsRepository, cipher: SecretCipher, input: NewApiKey): Promise<string> {
  const id = randomUUID();
  const { key, secretHash } = mintOpaqueKey(API_KEY_PREFIX, id);
  await accounts.mintKey({
    id,
    phone: input.phone,
    phoneId: input.phoneId,
    name: input.name,
    secretHash,
    accessToken: input.accessToken === undefined ? undefined : cipher.encrypt(input.accessToken),
    wabaId: input.wabaId,
  });
  return key;
}
