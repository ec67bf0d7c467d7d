import { parsePushTokenCliArgs } from './push-token.cli';

describe('push:token arguments', () => {
  it('defaults the account to "default" and the name to "cli"', () => {
    expect(parsePushTokenCliArgs([])).toEqual({ account: 'default', name: 'cli' });
  });

  it('takes --name and --account in any order', () => {
    expect(parsePushTokenCliArgs(['--account', 'acme', '--name', 'ci'])).toEqual({ account: 'acme', name: 'ci' });
  });

  it.each([[['--client', 'x']], [['--name']], [['--account', ' ']], [['--name', 'x'.repeat(256)]]])('refuses %j with one sentence', (argv) => {
    expect(() => parsePushTokenCliArgs(argv)).toThrow(/\.$/);
  });
});
