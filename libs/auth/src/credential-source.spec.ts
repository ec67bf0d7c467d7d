import { asIs, bearerHeader, headerPair, idBarSecret, namedHeader, opaqueKey } from './credential-source';
import { hashSecret, mintCredential, secretMatches } from './secret';

describe('header forms', () => {
  it('reads Authorization: Bearer <value>, case-insensitive and trimmed', () => {
    expect(bearerHeader().read({ authorization: 'Bearer abc|s3cret' })).toBe('abc|s3cret');
    expect(bearerHeader().read({ authorization: '  bearer   abc ' })).toBe('abc');
    expect(bearerHeader().read({ authorization: 'Basic YWJjOmRlZg==' })).toBeNull();
    expect(bearerHeader().read({ authorization: 'Bearer' })).toBeNull();
    expect(bearerHeader().read({})).toBeNull();
  });

  it('reads a named header, whatever the case of its name', () => {
    expect(namedHeader('apiKey').read({ apikey: ' k1 ' })).toBe('k1');
    expect(namedHeader('apikey').read({ apikey: ' ' })).toBeNull();
    expect(namedHeader('apikey').read({ apikey: ['k1', 'k2'] } as never)).toBe('k1');
  });

  it('reads a header pair only when both are there', () => {
    const pair = headerPair('X-Client-Key', 'X-Client-Token');
    expect(pair.read({ 'x-client-key': ' abc ', 'x-client-token': 's3cret' })).toEqual({ id: 'abc', secret: 's3cret' });
    expect(pair.read({ 'x-client-key': 'abc' })).toBeNull();
    expect(pair.read({ 'x-client-token': 's3cret' })).toBeNull();
  });
});

describe('parsers', () => {
  it('splits <id>|<secret> at the first bar', () => {
    expect(idBarSecret('a|b|c')).toEqual({ id: 'a', secret: 'b|c' });
    for (const bad of ['nobar', '|secret', 'id|', `${'i'.repeat(257)}|s`]) expect(idBarSecret(bad)).toBeNull();
    expect(idBarSecret(`${'i'.repeat(256)}|${'s'.repeat(256)}`)).toEqual({ id: 'i'.repeat(256), secret: 's'.repeat(256) });
  });

  it('bounds split credentials', () => {
    expect(asIs({ id: 'k', secret: 's'.repeat(257) })).toBeNull();
    expect(asIs({ id: 'k', secret: 's' })).toEqual({ id: 'k', secret: 's' });
  });

  it('round-trips opaque keys and refuses other prefixes or shapes', () => {
    const { id, plainText: key, secretHash } = mintCredential({ prefix: 'gk' });
    const parsed = opaqueKey('gk')(key)!;
    expect(parsed.id).toBe(id);
    expect(secretMatches(parsed.secret, secretHash)).toBe(true);
    expect(opaqueKey('ik')(key)).toBeNull();
    for (const bad of ['gk_', 'gk_id_', 'gk__secret', 'gk_id_sec ret', 'gk_id_sec_ret', `gk_id_${'s'.repeat(257)}`]) expect(opaqueKey('gk')(bad)).toBeNull();
    expect(secretMatches('x', hashSecret('y'))).toBe(false);
  });

  it('round-trips <id>|<secret> credentials', () => {
    const { id, plainText, secretHash } = mintCredential('id|secret');
    const parsed = idBarSecret(plainText)!;
    expect(parsed.id).toBe(id);
    expect(secretMatches(parsed.secret, secretHash)).toBe(true);
  });

  it('mints keys only from sane prefixes', () => {
    expect(() => mintCredential({ prefix: 'g_k' })).toThrow();
  });
});
