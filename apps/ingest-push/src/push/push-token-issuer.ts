import { randomUUID } from 'node:crypto';
import { mintOpaqueKey } from '@app/auth/secret';
import type { AccountsRepository } from '../accounts/accounts.repository';
import type { PushTokensRepository } from './push-tokens.repository';

/** Push tokens read `push_<token id>_<secret>`. */
export const TOKEN_PREFIX = 'push';

/** Creates a token for the account named `accountName` (created if new); returns the token, shown only now. */
export async function issuePushToken(tokens: PushTokensRepository, accounts: AccountsRepository, accountName: string, name: string): Promise<string> {
  const accountId = await accounts.idNamed(accountName);
  const id = randomUUID();
  const { key, secretHash } = mintOpaqueKey(TOKEN_PREFIX, id);
  await tokens.insert(id, accountId, name, secretHash);
  return key;
}
