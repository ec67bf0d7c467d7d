import { changedFields, isSecretField, MASK, maskSecrets } from './audit-mask';

describe('maskSecrets', () => {
  it('masks fields named like secrets at any depth, keeps identifiers and everything else', () => {
    const masked = maskSecrets({
      name: 'ci',
      secret: 's3cr3t',
      headers: { Authorization: 'Bearer x', 'X-Trace': 'a' },
      items: [{ api_key: 'k', push_token: 't' }],
      token_id: 'id-1',
      password: null,
      scopes: ['token:manage'],
    });
    expect(masked).toEqual({
      name: 'ci',
      secret: MASK,
      headers: { Authorization: MASK, 'X-Trace': 'a' },
      items: [{ api_key: MASK, push_token: MASK }],
      token_id: 'id-1',
      password: null,
      scopes: ['token:manage'],
    });
  });

  it.each([['secret'], ['clientSecret'], ['fcm_service_account_key'], ['PASSWORD'], ['authorization'], ['apns_token']])('%s is a secret', (name) =>
    expect(isSecretField(name)).toBe(true),
  );
  it.each([['token_id'], ['apiKeyId'], ['name'], ['url'], ['key_prefix']])('%s is not', (name) => expect(isSecretField(name)).toBe(false));
});

describe('changedFields', () => {
  it('keeps only what changed, masked on both sides', () => {
    expect(changedFields({ url: 'a', events: ['x'], secret: 'old' }, { url: 'b', events: ['x'], secret: 'new' })).toEqual({
      before: { url: 'a', secret: MASK },
      after: { url: 'b', secret: MASK },
    });
  });

  it('records the whole side of a creation or a deletion', () => {
    expect(changedFields(null, { name: 'n', token: 't' })).toEqual({ before: null, after: { name: 'n', token: MASK } });
    expect(changedFields({ name: 'n' }, null)).toEqual({ before: { name: 'n' }, after: null });
  });
});
