import { defineCommand } from '@app/database';
import { AccountsRepository } from '../accounts/accounts.repository';
import { issueSalesApiKey } from '../sales/sales-api-key.issuer';
import { SalesApiKeysRepository } from '../sales/sales-api-keys.repository';
import { ACCOUNT_CREDENTIAL_OPTIONS, parseAccountCredential } from './account-credential.options';

/** `apikey [--name N] [--account A]`: prints only the sales API key. */
export const APIKEY_COMMAND = defineCommand({
  name: 'apikey',
  summary: 'Mint a sales API key (`sales_<id>_<secret>`, shown once) of an account.',
  options: ACCOUNT_CREDENTIAL_OPTIONS,
  parse: parseAccountCredential,
  run: (sql, args) => issueSalesApiKey(new SalesApiKeysRepository(sql), new AccountsRepository(sql), args.account, args.name),
});
