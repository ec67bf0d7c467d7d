import { loadConfig } from '@app/config';
import { defineCommand } from '@app/database';
import { EncryptionConfig, SecretCipher } from '@app/secrets';
import { AccountsRepository } from '../accounts/accounts.repository';
import { issueApiKey } from '../accounts/api-key.issuer';

/** `apikey --phone <digits> --phone-id <id> [--name N] [--access-token T --waba-id W]`: prints only the key. */
export const APIKEY_COMMAND = defineCommand({
  name: 'apikey',
  summary: 'Mint a gateway API key (`gw_<id>_<secret>`, shown once) for a business phone.',
  options: {
    phone: { value: 'digits', description: 'the business phone number with its country code', required: true },
    'phone-id': { value: 'id', description: "the network's phone-number id", required: true },
    name: { value: 'name', description: 'a label (default cli)' },
    'access-token': { value: 'token', description: 'the cloud access token (with --waba-id), stored encrypted' },
    'waba-id': { value: 'digits', description: 'the WhatsApp Business Account id (with --access-token)' },
  },
  parse: (values) => {
    const { phone = '', 'phone-id': phoneId = '', name = 'cli', 'access-token': accessToken, 'waba-id': wabaId } = values;
    if (!/^\d{6,20}$/.test(phone)) throw new Error('--phone must be the business phone number in digits with its country code.');
    if (!/^[\w.-]{1,64}$/.test(phoneId)) throw new Error("--phone-id must be the network's phone-number id.");
    if (name.length > 255) throw new Error('--name may be at most 255 characters.');
    if ((accessToken === undefined) !== (wabaId === undefined)) throw new Error('--access-token and --waba-id go together.');
    if (wabaId !== undefined && !/^\d{1,64}$/.test(wabaId)) throw new Error('--waba-id must be the WhatsApp Business Account id (digits).');
    return { phone, phoneId, name, accessToken, wabaId };
  },
  // ENCRYPTION_KEYS is validated like the app's own setting, and only when a key is minted.
  run: (sql, args) => issueApiKey(new AccountsRepository(sql), new SecretCipher(loadConfig(EncryptionConfig).ENCRYPTION_KEYS), args),
});
