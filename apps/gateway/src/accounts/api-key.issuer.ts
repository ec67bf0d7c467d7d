import { mintCredential } from '@app/auth/secret';
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

/**
 * Creates a key (`gw_<id>_<secret>`) of the phone (created with its account on first use), the access token stored
 * encrypted, and returns the key, shown once; used by the `apikey` command (a file of its own: it loads no Nest module).
 */
export async function issueApiKey(accounts: AccountsRepository, cipher: SecretCipher, input: NewApiKey): Promise<string> {
  const { id, plainText, secretHash } = mintCredential({ prefix: API_KEY_PREFIX });
  await accounts.mintKey({
    id,
    phone: input.phone,
    phoneId: input.phoneId,
    name: input.name,
    secretHash,
    accessToken: input.accessToken === undefined ? undefined : cipher.encrypt(input.accessToken),
    wabaId: input.wabaId,
  });
  return plainText;
}
