import { mintCredential } from '@app/auth/secret';
import type { AccountsRepository } from '../accounts/accounts.repository';
import type { PushTokensRepository } from './push-tokens.repository';

/** Push tokens read `push_<token id>_<secret>`. */
export const TOKEN_PREFIX = 'push';

/**
 * Creates a token of the account named `accountName` (created if new) and returns it, shown only now;
 * used by the `push-token` command (a file of its own: it loads no Nest module).
 */
export async function issuePushToken(tokens: PushTokensRepository, accounts: AccountsRepository, accountName: string, name: string): Promise<string> {
  const accountId = await accounts.idNamed(accountName);
  const { id, plainText, secretHash } = mintCredential({ prefix: TOKEN_PREFIX });
  await tokens.insert(id, accountId, name, secretHash);
  return plainText;
}
