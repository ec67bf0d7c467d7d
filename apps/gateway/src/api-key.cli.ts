import { randomUUID } from 'node:crypto';
import { mintOpaqueKey } from '@app/auth';
import { loadConfig } from '@app/config';
import { migrateDatabase, Sql } from '@app/database';
import { EncryptionConfig, SecretCipher } from '@app/secrets';
import { createGatewayDataSource } from './database/gateway.data-source';
import { GATEWAY_SCHEMA } from './database/gateway.entities';
import { AccountsRepository } from './accounts/accounts.repository';
import { API_KEY_PREFIX } from './accounts/gateway-auth';

export interface ApiKeyCliArgs {
  phone: string;
  phoneId: string;
  name: string;
  accessToken?: string;
  wabaId?: string;
}

const USAGE = 'usage: --phone <digits> --phone-id <id> [--name N] [--access-token T --waba-id W]';
const FLAGS = ['--phone', '--phone-id', '--name', '--access-token', '--waba-id'];

/** Parses the CLI's arguments; throws an Error with one sentence when they are wrong. */
export function parseApiKeyCliArgs(argv: string[]): ApiKeyCliArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (!FLAGS.includes(flag) || value === undefined || values.has(flag)) throw new Error(`Unexpected argument "${flag}"; ${USAGE}.`);
    values.set(flag, value);
  }
  const phone = values.get('--phone') ?? '';
  if (!/^\d{6,20}$/.test(phone)) throw new Error(`--phone must be the business phone number in digits with its country code; ${USAGE}.`);
  const phoneId = values.get('--phone-id') ?? '';
  if (!/^[\w.-]{1,64}$/.test(phoneId)) throw new Error(`--phone-id must be the network's phone-number id; ${USAGE}.`);
  const name = values.get('--name') ?? 'cli';
  if (name.length > 255) throw new Error('--name may be at most 255 characters.');
  const accessToken = values.get('--access-token');
  const wabaId = values.get('--waba-id');
  if ((accessToken === undefined) !== (wabaId === undefined)) throw new Error(`--access-token and --waba-id go together; ${USAGE}.`);
  if (wabaId !== undefined && !/^\d{1,64}$/.test(wabaId)) throw new Error('--waba-id must be the WhatsApp Business Account id (digits).');
  return { phone, phoneId, name, accessToken, wabaId };
}

/**
 * `npm run -s gateway:apikey -- --phone <digits> --phone-id <id> [--name N] [--access-token T --waba-id W]`
 * through tools/app-cli.js, which supplies the database and ENCRYPTION_KEYS (validated like the app's own setting)
 * and prints only the key.
 */
export const cli = {
  parse: parseApiKeyCliArgs,
  run: (databaseUrl: string, args: ApiKeyCliArgs): Promise<string> => createApiKeyFromCli(databaseUrl, loadConfig(EncryptionConfig).ENCRYPTION_KEYS, args),
};

/** Mints an API key in the database at `databaseUrl` (migrating it first) and returns it. */
export async function createApiKeyFromCli(databaseUrl: string, encryptionKeys: string, args: ApiKeyCliArgs): Promise<string> {
  const dataSource = await createGatewayDataSource(databaseUrl).initialize();
  try {
    await migrateDatabase(dataSource, GATEWAY_SCHEMA);
    return await mintApiKey(new AccountsRepository(new Sql(dataSource)), new SecretCipher(encryptionKeys), args);
  } finally {
    await dataSource.destroy();
  }
}

/** Mints a key (`gw_<id>_<secret>`); the access token is stored encrypted. Returns the key, shown once. */
export async function mintApiKey(accounts: AccountsRepository, cipher: SecretCipher, args: ApiKeyCliArgs): Promise<string> {
  const id = randomUUID();
  const { key, secretHash } = mintOpaqueKey(API_KEY_PREFIX, id);
  await accounts.mintKey({
    id,
    phone: args.phone,
    phoneId: args.phoneId,
    name: args.name,
    secretHash,
    accessToken: args.accessToken === undefined ? undefined : cipher.encrypt(args.accessToken),
    wabaId: args.wabaId,
  });
  return key;
}
