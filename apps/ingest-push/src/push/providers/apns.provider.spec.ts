import { FakeApns } from '@app/testkit';
import { ApnsProvider } from './apns.provider';

const message = (device: string, id = '7d1c2b7e-1111-4a4a-9b9b-000000000001') => ({ id, device, title: 'Hi', body: 'Body', urlScheme: 'app://x' });

describe('ApnsProvider against a loopback HTTP/2 APNs with TLS', () => {
  let apns: FakeApns;
  let provider: ApnsProvider;

  beforeAll(async () => {
    apns = await new FakeApns().start();
  });
  afterAll(() => apns.stop());
  beforeEach(() => {
    provider = new ApnsProvider({
      baseUrl: apns.baseUrl,
      keyFile: apns.keyFile,
      keyId: apns.keyId,
      teamId: apns.teamId,
      topic: apns.topic,
      caFile: apns.caFile,
      timeoutMs: 2000,
      expirationSeconds: 86_400,
    });
  });
  afterEach(() => provider.close());

  it('sends the alert with url_scheme and the apns-* headers, over verified TLS with an ES256 token', async () => {
    expect(await provider.send(message('a1'))).toEqual({ kind: 'sent', providerId: '7d1c2b7e-1111-4a4a-9b9b-000000000001' });
    const got = apns.attempts('a1')[0];
    expect(got.body).toEqual({ aps: { alert: { title: 'Hi', body: 'Body' }, sound: 'default' }, url_scheme: 'app://x' });
    expect(got.headers).toMatchObject({ 'apns-topic': apns.topic, 'apns-push-type': 'alert', 'apns-priority': '10' });
    const expiration = Number(got.headers['apns-expiration']);
    expect(expiration).toBeGreaterThan(Date.now() / 1000 + 86_000);
  });

  it('reuses one provider token for many sends on one connection', async () => {
    const before = apns.providerTokens.size;
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => provider.send(message(`m${i}`))));
    expect(outcomes.every((o) => o.kind === 'sent')).toBe(true);
    expect(apns.providerTokens.size - before).toBe(1);
  });

  it('refuses to talk to a server its CA list does not vouch for', async () => {
    const untrusting = new ApnsProvider({
      baseUrl: apns.baseUrl,
      keyFile: apns.keyFile,
      keyId: apns.keyId,
      teamId: apns.teamId,
      topic: apns.topic,
      timeoutMs: 2000,
      expirationSeconds: 60,
    });
    const outcome = await untrusting.send(message('tls'));
    await untrusting.close();
    expect(outcome).toMatchObject({ kind: 'retry' });
    expect(apns.attempts('tls')).toHaveLength(0);
  });

  it('reports Unregistered (410) and BadDeviceToken (400) as invalid tokens', async () => {
    apns.script('gone', { status: 410, body: { reason: 'Unregistered', timestamp: Date.now() } });
    apns.script('bad', { status: 400, body: { reason: 'BadDeviceToken' } });
    expect(await provider.send(message('gone'))).toEqual({ kind: 'invalid_token', error: 'apns 410 Unregistered' });
    expect(await provider.send(message('bad'))).toEqual({ kind: 'invalid_token', error: 'apns 400 BadDeviceToken' });
  });

  it('retries 429 with Retry-After and 5xx; other 4xx are final', async () => {
    apns.script('busy', { status: 429, body: { reason: 'TooManyRequests' }, headers: { 'retry-after': '3' } });
    apns.script('down', { status: 503, body: { reason: 'ServiceUnavailable' } });
    apns.script('big', { status: 413, body: { reason: 'PayloadTooLarge' } });
    expect(await provider.send(message('busy'))).toEqual({ kind: 'retry', error: 'apns 429 TooManyRequests', retryAfterSeconds: 3 });
    expect((await provider.send(message('down'))).kind).toBe('retry');
    expect(await provider.send(message('big'))).toEqual({ kind: 'failed', error: 'apns 413 PayloadTooLarge' });
  });

  it('treats a reset stream as a network error and sends on a fresh stream after', async () => {
    apns.script('cut', { status: 0, hangUp: true });
    expect((await provider.send(message('cut'))).kind).toBe('retry');
    expect((await provider.send(message('cut'))).kind).toBe('sent');
  });

  it('sends nothing once the job deadline has passed, and sends under one still running', async () => {
    const deadline = new AbortController();
    deadline.abort();
    expect(await provider.send(message('late'), deadline.signal)).toEqual({ kind: 'retry', error: 'apns: timed out', retryAfterSeconds: null });
    expect(apns.attempts('late')).toHaveLength(0);
    expect((await provider.send(message('late'), AbortSignal.timeout(2000))).kind).toBe('sent');
  });

  it('refuses a key file that is not a key', () => {
    expect(
      () => new ApnsProvider({ baseUrl: apns.baseUrl, keyFile: __filename, keyId: 'k', teamId: 't', topic: 'x', timeoutMs: 1, expirationSeconds: 1 }),
    ).toThrow(/APNS_KEY_FILE/);
  });
});
