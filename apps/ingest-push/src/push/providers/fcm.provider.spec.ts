import { FakeFcm, FCM_UNREGISTERED } from '@app/testkit';
import { FcmProvider } from './fcm.provider';

const message = (device: string) => ({ id: '7d1c2b7e-1111-4a4a-9b9b-000000000001', device, title: 'Hi', body: 'Body', urlScheme: 'app://x' });

describe('FcmProvider against a loopback FCM', () => {
  let fcm: FakeFcm;
  let provider: FcmProvider;

  beforeEach(async () => {
    fcm = await new FakeFcm().start();
    provider = new FcmProvider({ baseUrl: fcm.baseUrl, serviceAccountFile: fcm.serviceAccountFile, timeoutMs: 2000, connections: 4 });
  });
  afterEach(async () => {
    await provider.close();
    await fcm.stop();
  });

  it('sends the v1 message with title, body and url_scheme in data, under one cached access token', async () => {
    expect(await provider.send(message('dev-1'))).toEqual({ kind: 'sent', providerId: 'projects/fake-project/messages/1' });
    expect(await provider.send(message('dev-2'))).toEqual({ kind: 'sent', providerId: 'projects/fake-project/messages/2' });
    expect(fcm.tokensIssued).toHaveLength(1);
    expect(fcm.received[0].body).toEqual({
      message: { token: 'dev-1', notification: { title: 'Hi', body: 'Body' }, data: { url_scheme: 'app://x' }, android: { priority: 'high' } },
    });
    expect(fcm.received[0].headers.authorization).toBe(`Bearer ${fcm.tokensIssued[0]}`);
  });

  it('shares one token request between concurrent sends', async () => {
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => provider.send(message(`dev-${i}`))));
    expect(outcomes.every((o) => o.kind === 'sent')).toBe(true);
    expect(fcm.tokensIssued).toHaveLength(1);
  });

  it('renews the token when it is about to expire', async () => {
    fcm.tokenLifetime = 30; // inside the one-minute margin: never reused
    await provider.send(message('dev-1'));
    await provider.send(message('dev-2'));
    expect(fcm.tokensIssued).toHaveLength(2);
  });

  it('takes FCM_TOKEN_URL over the key file token_uri', async () => {
    const other = new FcmProvider({
      baseUrl: fcm.baseUrl,
      tokenUrl: `${fcm.baseUrl}/elsewhere`,
      serviceAccountFile: fcm.serviceAccountFile,
      timeoutMs: 2000,
      connections: 1,
    });
    const outcome = await other.send(message('dev-1'));
    await other.close();
    expect(outcome).toMatchObject({ kind: 'retry', error: expect.stringContaining('fcm token') });
    expect(fcm.tokensIssued).toHaveLength(0);
  });

  it('reports an unregistered token as final', async () => {
    fcm.script('gone', FCM_UNREGISTERED);
    expect(await provider.send(message('gone'))).toEqual({ kind: 'invalid_token', error: 'fcm 404 UNREGISTERED: Requested entity was not found.' });
  });

  it('reports an invalid registration token as final, other 400s as failed', async () => {
    fcm.script('bad', {
      status: 400,
      body: { error: { status: 'INVALID_ARGUMENT', message: 'The registration token is not a valid FCM registration token' } },
    });
    fcm.script('odd', { status: 400, body: { error: { status: 'INVALID_ARGUMENT', message: 'Invalid JSON payload received.' } } });
    expect((await provider.send(message('bad'))).kind).toBe('invalid_token');
    expect((await provider.send(message('odd'))).kind).toBe('failed');
  });

  it('asks for a retry on 429 with Retry-After, on 5xx and on a dropped connection', async () => {
    fcm.script('busy', { status: 429, body: { error: { status: 'RESOURCE_EXHAUSTED' } }, headers: { 'retry-after': '7' } });
    fcm.script('down', { status: 503, body: { error: { status: 'UNAVAILABLE' } } });
    fcm.script('cut', { status: 0, hangUp: true });
    expect(await provider.send(message('busy'))).toEqual({ kind: 'retry', error: 'fcm 429 RESOURCE_EXHAUSTED', retryAfterSeconds: 7 });
    expect(await provider.send(message('down'))).toEqual({ kind: 'retry', error: 'fcm 503 UNAVAILABLE', retryAfterSeconds: null });
    expect((await provider.send(message('cut'))).kind).toBe('retry');
    expect((await provider.send(message('cut'))).kind).toBe('sent');
  });

  it('gives up at the job deadline it is given, and sends again on the same pool', async () => {
    await provider.send(message('dev-1'));
    fcm.delayMs = 1500;
    const started = Date.now();
    const outcome = await provider.send(message('slow'), AbortSignal.timeout(200));
    expect(outcome).toMatchObject({ kind: 'retry', error: expect.stringMatching(/^fcm: /) });
    expect(Date.now() - started).toBeLessThan(1500);
    fcm.delayMs = 0;
    expect((await provider.send(message('dev-2'), AbortSignal.timeout(2000))).kind).toBe('sent');
  });

  it('drops a token FCM refuses and gets a new one', async () => {
    await provider.send(message('dev-1'));
    fcm.tokensIssued.length = 0; // FCM no longer knows the cached token
    expect((await provider.send(message('dev-2'))).kind).toBe('retry');
    expect((await provider.send(message('dev-2'))).kind).toBe('sent');
  });

  it('asks for a retry while the token endpoint fails', async () => {
    fcm.tokenFailures = 1;
    expect((await provider.send(message('dev-1'))).kind).toBe('retry');
    expect((await provider.send(message('dev-1'))).kind).toBe('sent');
  });

  it('refuses a key file that is not a service account', () => {
    expect(() => new FcmProvider({ baseUrl: fcm.baseUrl, serviceAccountFile: __filename, timeoutMs: 1000, connections: 1 })).toThrow(
      /FCM_SERVICE_ACCOUNT_FILE/,
    );
  });
});
