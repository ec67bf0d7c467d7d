import { defineCommand } from '@app/database';
import { AccountsRepository } from '../accounts/accounts.repository';
import { SalesApiKeysService } from '../sales/sales-api-keys.service';
import { ACCOUNT_CREDENTIAL_OPTIONS, parseAccountCredential } from './account-credential.options';

/** `apikey [--name N] [--account A]`: prints only the sales API key. */
export const APIKEY_COMMAND = defineCommand({
  name: 'apikey',
  summary: 'Mint a sales API key (`sales_<id>_<secret>`, shown once) of an account.',
  options: ACCOUNT_CREDENTIAL_OPTIONS,
  parse: parseAccountCredential,
  run: async (sql, args) => (await new SalesApiKeysService(sql, new AccountsRepository(sql)).createForAccountNamed(args.name, args.account)).key,
});
