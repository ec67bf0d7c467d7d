/** The account of a credential minted without `--account`. */
export const DEFAULT_ACCOUNT = 'default';

export interface CredentialCliArgs {
  /** The account's name: the account is found by it, or created on first use (absent: DEFAULT_ACCOUNT, for callers that build the arguments themselves). */
  account?: string;
  /** The credential's own name (a label). */
  name: string;
}

/**
 * `[--name N] [--account A]`, the arguments of both credential CLIs (`ingest:apikey`, `push:token`):
 * `A` is an account name (default `default`). Throws an Error with one sentence when they are wrong.
 */
export function parseCredentialCliArgs(argv: string[]): CredentialCliArgs {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (!['--name', '--account'].includes(flag) || value === undefined) throw new Error(`Unexpected argument "${flag}"; usage: [--name N] [--account A].`);
    if (value.trim() === '' || value.length > 255) throw new Error(`${flag} must be 1 to 255 characters.`);
    values.set(flag, value.trim());
  }
  return { account: values.get('--account') ?? DEFAULT_ACCOUNT, name: values.get('--name') ?? 'cli' };
}
