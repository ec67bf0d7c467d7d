import { FakeWebPush } from '@app/testkit';
import webpush from 'web-push';
import { parseSubscription, WebPushProvider } from './web-push.provider';

describe('WebPushProvider against a loopback push service (HTTPS, VAPID, aes128gcm)', () => {
  let service: FakeWebPush;
  let provider: WebPushProvider;
  const vapid = webpush.generateVAPIDKeys();
  const message = (device: string, id = '7d1c2b7e-1111-4a4a-9b9b-000000000001') => ({
    id,
    device,
    title: 'Hi',
    body: 'Body',
    urlScheme: 'app://x',
    openToken: 't'.repeat(43),
  });

  beforeAll(async () => {
    service = await new FakeWebPush().start();
    provider = new WebPushProvider({
      vapidPublicKey: vapid.publicKey,
      vapidPrivateKey: vapid.privateKey,
      vapidSubject: 'mailto:push@example.com',
      timeoutMs: 5000,
      ttlSeconds: 3600,
      connections: 4,
      caFile: service.caFile,
    });
  });
  afterAll(async () => {
    await provider.close();
    await service.stop();
  });

  it("encrypts for the subscription's keys and signs with VAPID: the push service decrypts the payload", async () => {
    const subscription = service.subscribe('browser-1');
    expect(await provider.send(message(JSON.stringify(subscription)))).toEqual({ kind: 'sent', providerId: null });
    expect(service.problems).toEqual([]);
    const got = service.attempts('browser-1')[0];
    expect(got.body).toEqual({ title: 'Hi', body: 'Body', url_scheme: 'app://x', push_id: '7d1c2b7e-1111-4a4a-9b9b-000000000001', open_token: 't'.repeat(43) });
    expect(got.headers).toMatchObject({ 'content-encoding': 'aes128gcm', ttl: '3600', urgency: 'high' });
  });

  it('reports 404 and 410 as an invalid subscription, retries 429 and 5xx, and fails other answers', async () => {
    for (const [name, status] of [
      ['gone', 410],
      ['missing', 404],
      ['busy', 429],
      ['down', 503],
      ['big', 413],
    ] as const) {
      service.script(name, { status, headers: status === 429 ? { 'retry-after': '7' } : {} });
      const outcome = await provider.send(message(JSON.stringify(service.subscribe(name))));
      const expected = { 410: 'invalid_token', 404: 'invalid_token', 429: 'retry', 503: 'retry', 413: 'failed' }[status];
      expect(outcome.kind).toBe(expected);
      if (status === 429) expect(outcome).toMatchObject({ retryAfterSeconds: 7 });
    }
  });

  it('refuses to talk to a push service its CA list does not vouch for', async () => {
    const untrusting = new WebPushProvider({
      vapidPublicKey: vapid.publicKey,
      vapidPrivateKey: vapid.privateKey,
      vapidSubject: 'mailto:a@b.c',
      timeoutMs: 2000,
      ttlSeconds: 60,
      connections: 1,
    });
    const outcome = await untrusting.send(message(JSON.stringify(service.subscribe('tls'))));
    await untrusting.close();
    expect(outcome.kind).toBe('retry');
    expect(service.attempts('tls')).toHaveLength(0);
  });

  it('reads only a subscription with an https endpoint and both keys', () => {
    const good = service.subscribe('shape');
    expect(parseSubscription(JSON.stringify(good))).toEqual(good);
    expect(parseSubscription('fcm-token')).toBeNull();
    expect(parseSubscription(JSON.stringify({ ...good, endpoint: 'http://insecure' }))).toBeNull();
    expect(parseSubscription(JSON.stringify({ endpoint: good.endpoint, keys: { p256dh: good.keys.p256dh } }))).toBeNull();
  });

  it('refuses a VAPID key pair that is not one at start', () => {
    expect(
      () =>
        new WebPushProvider({
          vapidPublicKey: 'short',
          vapidPrivateKey: vapid.privateKey,
          vapidSubject: 'mailto:a@b.c',
          timeoutMs: 1,
          ttlSeconds: 1,
          connections: 1,
        }),
    ).toThrow();
  });
});
