/** The account of a credential minted without `--account`. */
export const DEFAULT_ACCOUNT = 'default';

/** `[--name N] [--account A]`, the options of both credential commands (`apikey`, `push-token`). */
export const ACCOUNT_CREDENTIAL_OPTIONS = {
  name: { value: 'name', description: 'a label for the credential (default cli)' },
  account: { value: 'account', description: `the account's name: found, or created on first use (default ${DEFAULT_ACCOUNT})` },
};

export interface AccountCredentialArgs {
  account: string;
  name: string;
}

/** Both options trimmed, 1 to 255 characters; throws an Error with one sentence when they are wrong. */
export function parseAccountCredential(values: Readonly<Partial<Record<keyof typeof ACCOUNT_CREDENTIAL_OPTIONS, string>>>): AccountCredentialArgs {
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && (value.trim() === '' || value.length > 255)) throw new Error(`--${key} must be 1 to 255 characters.`);
  }
  return { account: values.account?.trim() ?? DEFAULT_ACCOUNT, name: values.name?.trim() ?? 'cli' };
}
