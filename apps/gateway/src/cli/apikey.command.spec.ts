import { GATEWAY_CLI } from './gateway.cli';

describe('main.js apikey (npm run -s gateway:apikey)', () => {
  const parse = (...argv: string[]) => GATEWAY_CLI.parse(['apikey', ...argv]);

  it('reads the phone, its id, a name and the cloud credentials', () => {
    expect(parse('--phone', '15550102030', '--phone-id', '1098', '--name', 'shop', '--access-token', 'EAAG', '--waba-id', '42')).toMatchObject({
      args: { phone: '15550102030', phoneId: '1098', name: 'shop', accessToken: 'EAAG', wabaId: '42' },
    });
    expect(parse('--phone-id', '1098', '--phone', '15550102030')).toMatchObject({
      args: { phone: '15550102030', phoneId: '1098', name: 'cli', accessToken: undefined, wabaId: undefined },
    });
  });

  it.each([
    [[], /^--phone is required; usage: node apps\/gateway\/src\/main\.js apikey --phone <digits> --phone-id <id> \[--name <name>\]/],
    [['--phone', '+1 555', '--phone-id', '1'], /^--phone must be/],
    [['--phone', '15550102030'], /^--phone-id is required/],
    [['--phone', '15550102030', '--phone-id', '1', '--access-token', 'x'], /^--access-token and --waba-id go together\.$/],
    [['--phone', '15550102030', '--phone-id', '1', '--access-token', 'x', '--waba-id', 'abc'], /^--waba-id must be/],
    [['--phone', '15550102030', '--phone-id', '1', '--scopes', '*'], /^Unexpected argument "--scopes"; usage/],
    [['--phone', '15550102030', '--phone-id'], /^--phone-id needs a value; usage/],
  ])('refuses %j with one sentence', (argv, message) => {
    expect(() => parse(...argv)).toThrow(message);
  });

  it('answers --help with the options, before any database', () => {
    const parsed = parse('--help');
    expect('help' in parsed && parsed.help).toMatch(/^Mint a gateway API key[^\n]*\n\nusage: [^\n]+\n\n {2}--phone <digits> +the business phone number/);
  });
});
