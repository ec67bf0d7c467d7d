import { parseApiKeyCliArgs } from './api-key.cli';

describe('parseApiKeyCliArgs', () => {
  it('reads the phone, its id, a name and the cloud credentials', () => {
    expect(parseApiKeyCliArgs(['--phone', '15550102030', '--phone-id', '1098', '--name', 'shop', '--access-token', 'EAAG', '--waba-id', '42'])).toEqual({ phone: '15550102030', phoneId: '1098', name: 'shop', accessToken: 'EAAG', wabaId: '42' });
    expect(parseApiKeyCliArgs(['--phone-id', '1098', '--phone', '15550102030'])).toEqual({ phone: '15550102030', phoneId: '1098', name: 'cli', accessToken: undefined, wabaId: undefined });
  });

  it.each([
    [[], '--phone must be'],
    [['--phone', '+1 555', '--phone-id', '1'], '--phone must be'],
    [['--phone', '15550102030'], '--phone-id must be'],
    [['--phone', '15550102030', '--phone-id', '1', '--access-token', 'x'], 'go together'],
    [['--phone', '15550102030', '--phone-id', '1', '--access-token', 'x', '--waba-id', 'abc'], '--waba-id must be'],
    [['--phone', '15550102030', '--phone-id', '1', '--scopes', '*'], 'Unexpected argument "--scopes"'],
    [['--phone', '15550102030', '--phone-id'], 'Unexpected argument "--phone-id"'],
  ])('refuses %j with one sentence', (argv, message) => {
    expect(() => parseApiKeyCliArgs(argv)).toThrow(message);
  });
});
