import { mintCredential } from '@app/auth/secret';
import type { AccountsRepository } from '../accounts/accounts.repository';
import type { SalesApiKeysRepository } from './sales-api-keys.repository';

/** Sales API keys read `sales_<key id>_<secret>`. */
export const SALES_KEY_PREFIX = 'sales';

/**
 * Creates a key of the account named `accountName` (created if new) and returns it, shown only now;
 * used by the `apikey` command (a file of its own: it loads no Nest module).
 */
export async function issueSalesApiKey(keys: SalesApiKeysRepository, accounts: AccountsRepository, accountName: string, name: string): Promise<string> {
  const accountId = await accounts.idNamed(accountName);
  const { id, plainText, secretHash } = mintCredential({ prefix: SALES_KEY_PREFIX });
  await keys.insert(id, accountId, name, secretHash);
  return plainText;
}
