import { parseCredentialCliArgs } from './credential-cli-args';
import { cli as pushTokenCli } from '../push/push-token.cli';
import { cli as salesApiKeyCli } from '../sales/sales-api-key.cli';

describe('ingest:apikey and push:token arguments', () => {
  it('defaults the account to "default" and the name to "cli"', () => {
    expect(parseCredentialCliArgs([])).toEqual({ account: 'default', name: 'cli' });
  });

  it('takes --name and --account (an account name) in any order, trimmed', () => {
    expect(parseCredentialCliArgs(['--account', ' acme ', '--name', 'ci'])).toEqual({ account: 'acme', name: 'ci' });
  });

  it.each([[['--client', 'x']], [['--name']], [['--account', ' ']], [['--name', 'x'.repeat(256)]]])('refuses %j with one sentence', (argv) => {
    expect(() => parseCredentialCliArgs(argv)).toThrow(/^[^.]+\.$/);
  });

  it('is what both CLIs parse with', () => {
    expect(pushTokenCli.parse).toBe(parseCredentialCliArgs);
    expect(salesApiKeyCli.parse).toBe(parseCredentialCliArgs);
  });
});
