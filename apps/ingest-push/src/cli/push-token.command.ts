import { defineCommand } from '@app/database';
import { AccountsRepository } from '../accounts/accounts.repository';
import { issuePushToken } from '../push/push-token.issuer';
import { PushTokensRepository } from '../push/push-tokens.repository';
import { ACCOUNT_CREDENTIAL_OPTIONS, parseAccountCredential } from './account-credential.options';

/** `push-token [--name N] [--account A]`: prints only the push token. */
export const PUSH_TOKEN_COMMAND = defineCommand({
  name: 'push-token',
  summary: 'Mint a push bearer token (`push_<id>_<secret>`, shown once) of an account.',
  options: ACCOUNT_CREDENTIAL_OPTIONS,
  parse: parseAccountCredential,
  run: (sql, args) => issuePushToken(new PushTokensRepository(sql), new AccountsRepository(sql), args.account, args.name),
});
