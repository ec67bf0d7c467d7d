import fc from 'fast-check';
import { generateWebhookSecret, signedHeaders, verifyWebhook, WebhookVerificationError } from './webhook-signature';

describe('webhook signatures', () => {
  const now = 1_790_000_000;

  it('makes secrets of whsec_ and base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('matches the Standard Webhooks reference vector', () => {
    // From the standard-webhooks reference libraries' test suite.
    const headers = signedHeaders(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(headers['webhook-signature']).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('verifies any body signed with the secret, and returns it parsed', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.uuid(), (value, id) => {
        const secret = generateWebhookSecret();
        const body = JSON.stringify(value);
        const headers = signedHeaders([secret], id, now, body);
        expect(verifyWebhook(secret, headers, Buffer.from(body), { now })).toEqual(JSON.parse(body));
      }),
      { numRuns: 50 },
    );
  });

  it('accepts either secret while two sign, and a Fetch Headers object', () => {
    const [old, current] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = signedHeaders([current, old], 'evt_1', now, '{}');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyWebhook(old, headers, '{}', { now })).toEqual({});
    expect(verifyWebhook(current, new Headers(headers), '{}', { now })).toEqual({});
  });

  it('refuses a changed body, another secret, a replayed timestamp and missing headers', () => {
    const secret = generateWebhookSecret();
    const headers = signedHeaders([secret], 'evt_1', now, '{"a":1}');
    const refused = (fn: () => unknown) => expect(fn).toThrow(WebhookVerificationError);
    refused(() => verifyWebhook(secret, headers, '{"a":2}', { now }));
    refused(() => verifyWebhook(generateWebhookSecret(), headers, '{"a":1}', { now }));
    refused(() => verifyWebhook(secret, headers, '{"a":1}', { now: now + 301 }));
    refused(() => verifyWebhook(secret, { ...headers, 'webhook-signature': 'v2,' + headers['webhook-signature'].slice(3) }, '{"a":1}', { now }));
    refused(() => verifyWebhook(secret, { 'webhook-id': 'evt_1' }, '{"a":1}', { now }));
  });
});
