import { CredentialForm, extractCredential } from './credentials';

const ALL = [CredentialForm.Bearer, CredentialForm.ClientKeyHeaders, CredentialForm.ApiKeyHeader];

describe('extractCredential', () => {
  it('reads Authorization: Bearer <id>|<secret>', () => {
    expect(extractCredential({ authorization: 'Bearer abc|s3cret' }, ALL)).toEqual({ id: 'abc', secret: 's3cret' });
    expect(extractCredential({ authorization: '  bearer   abc|s3cret ' }, ALL)).toEqual({ id: 'abc', secret: 's3cret' });
  });

  it('splits at the first bar', () => {
    expect(extractCredential({ authorization: 'Bearer a|b|c' }, ALL)).toEqual({ id: 'a', secret: 'b|c' });
  });

  it('reads X-Client-Key plus X-Client-Token', () => {
    expect(extractCredential({ 'x-client-key': ' abc ', 'x-client-token': 's3cret' }, ALL)).toEqual({ id: 'abc', secret: 's3cret' });
    expect(extractCredential({ 'x-client-key': 'abc' }, ALL)).toBeNull();
    expect(extractCredential({ 'x-client-token': 's3cret' }, ALL)).toBeNull();
  });

  it('reads apikey: <id>|<secret>', () => {
    expect(extractCredential({ apikey: 'abc|s3cret' }, ALL)).toEqual({ id: 'abc', secret: 's3cret' });
  });

  it('only reads the forms it is given, in their order', () => {
    const headers = { authorization: 'Bearer one|a', apikey: 'two|b' };
    expect(extractCredential({ apikey: 'two|b' }, [CredentialForm.Bearer])).toBeNull();
    expect(extractCredential(headers, [CredentialForm.ApiKeyHeader, CredentialForm.Bearer])).toEqual({ id: 'two', secret: 'b' });
    expect(extractCredential(headers, [CredentialForm.Bearer, CredentialForm.ApiKeyHeader])).toEqual({ id: 'one', secret: 'a' });
  });

  it('falls through to the next form when one is malformed', () => {
    expect(extractCredential({ authorization: 'Bearer nobar', 'x-client-key': 'k', 'x-client-token': 't' }, ALL)).toEqual({ id: 'k', secret: 't' });
  });

  it.each([
    ['no headers', {}],
    ['another scheme', { authorization: 'Basic YWJjOmRlZg==' }],
    ['a bare bearer', { authorization: 'Bearer' }],
    ['no bar', { authorization: 'Bearer abcdef' }],
    ['an empty id', { authorization: 'Bearer |secret' }],
    ['an empty secret', { authorization: 'Bearer id|' }],
    ['an oversized id', { authorization: `Bearer ${'i'.repeat(257)}|s` }],
    ['an oversized secret', { 'x-client-key': 'id', 'x-client-token': 's'.repeat(257) }],
    ['empty client-key headers', { 'x-client-key': ' ', 'x-client-token': ' ' }],
  ])('returns null for %s', (_, headers) => {
    expect(extractCredential(headers, ALL)).toBeNull();
  });

  it('accepts parts of exactly 256 characters', () => {
    expect(extractCredential({ authorization: `Bearer ${'i'.repeat(256)}|${'s'.repeat(256)}` }, ALL)).toEqual({ id: 'i'.repeat(256), secret: 's'.repeat(256) });
  });

  it('uses the first of repeated header values', () => {
    expect(extractCredential({ 'x-client-key': ['k1', 'k2'], 'x-client-token': ['t1', 't2'] } as never, ALL)).toEqual({ id: 'k1', secret: 't1' });
  });
});
