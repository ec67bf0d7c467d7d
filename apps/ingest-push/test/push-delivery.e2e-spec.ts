import 'reflect-metadata';
import { FakeApns, FakeFcm, FCM_UNREGISTERED } from './support/push-fakes';
import { dueIn, itemRows, pushItem, request, startPush, type PushApp } from './support/push-test';

jest.setTimeout(60_000);

const sentAll = (rows: { status: string }[]) => rows.every((r) => !['scheduled', 'sending'].includes(r.status));

describe('push delivery with the sandbox providers (the default)', () => {
  let app: PushApp;
  let token: string;

  beforeAll(async () => {
    app = await startPush();
    token = await app.token();
  });
  afterAll(() => app.close());

  it('sends a push due in 2 s then, not before', async () => {
    const due = dueIn(2_000);
    const posted = await app.post(token, [pushItem({ ...due }), pushItem({ ...due, nm_plataforma: 'IOS' })]);
    expect(posted.status).toBe(202);
    const rows = await app.until('the scheduled pushes', () => itemRows(app.sql, posted.body.batch_id), sentAll);
    for (const row of rows) {
      expect(row.status).toBe('sent');
      expect(row.sent_at!.getTime()).toBeGreaterThanOrEqual(due.at);
    }
  });

  it('sends a push with a past or no due time at once', async () => {
    const posted = await app.post(token, [pushItem({ dt_envio: '2020-01-01', hr_envio: '00:00:00' }), pushItem()]);
    const rows = await app.until('the pushes', () => itemRows(app.sql, posted.body.batch_id), sentAll);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['sent', 1], ['sent', 1]]);
  });

  it('counts what the providers answered in /metrics', async () => {
    const counted = async (outcome: string): Promise<number> => {
      const text = (await request(app.http).get('/metrics').expect(200)).text;
      const lines = text.split('\n').filter((l) => l.startsWith('push_results_total{') && l.includes(`outcome="${outcome}"`));
      return lines.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    };
    const before = { sent: await counted('sent'), invalid: await counted('invalid_token') };
    const posted = await app.post(token, [pushItem(), pushItem({ nm_plataforma: 'ios' }), pushItem({ nm_push: `unregistered-${Date.now()}` })]);
    await app.until('the pushes', () => itemRows(app.sql, posted.body.batch_id), sentAll);
    expect(await counted('sent')).toBe(before.sent + 2);
    expect(await counted('invalid_token')).toBe(before.invalid + 1);
  });

  it('marks an unregistered device, then skips and reports later pushes to it', async () => {
    const device = `unregistered-${Math.random().toString(36).slice(2)}`;
    const first = await app.post(token, [pushItem({ nm_push: device })]);
    const [row] = await app.until('the first push', () => itemRows(app.sql, first.body.batch_id), sentAll);
    expect(row).toMatchObject({ status: 'invalid_token', attempts: 1, error: 'sandbox: Unregistered' });

    const again = await app.post(token, [pushItem({ nm_push: device }), pushItem({ nm_push: device, nm_plataforma: 'ios' })]);
    const rows = await app.until('the second batch', () => itemRows(app.sql, again.body.batch_id), sentAll);
    expect(rows[0]).toMatchObject({ status: 'invalid_token', error: 'skipped: device marked invalid (sandbox: Unregistered)' });
    // Marked per platform: the same id on iOS is its own device (the sandbox calls it unregistered too, on its own).
    expect(rows[1]).toMatchObject({ status: 'invalid_token', error: 'sandbox: Unregistered' });
    const res = await request(app.http).get(`/api/pushm/bulk/${again.body.batch_id}`).set('authorization', `Bearer ${token}`);
    expect(res.body.counts).toMatchObject({ invalid_token: 2, sent: 0 });
    expect(res.body.items.data[0].error).toMatch(/^skipped/);
  });

  it('keeps the mark per account: another account still sends to that device id', async () => {
    const device = `unregistered-shared-${Math.random().toString(36).slice(2)}`;
    const mine = await app.post(token, [pushItem({ nm_push: device })]);
    await app.until('my push', () => itemRows(app.sql, mine.body.batch_id), sentAll);
    const theirs = await app.post(await app.token(), [pushItem({ nm_push: device })]);
    const [row] = await app.until('their push', () => itemRows(app.sql, theirs.body.batch_id), sentAll);
    expect(row.error).toBe('sandbox: Unregistered');
  });
});

describe('push delivery through FCM and APNs (loopback fakes)', () => {
  let app: PushApp;
  let token: string;
  let fcm: FakeFcm;
  let apns: FakeApns;

  beforeAll(async () => {
    fcm = await new FakeFcm().start();
    apns = await new FakeApns().start();
    app = await startPush({
      PUSH_PROVIDER_ANDROID: 'fcm',
      FCM_BASE_URL: fcm.baseUrl,
      FCM_SERVICE_ACCOUNT_FILE: fcm.serviceAccountFile,
      PUSH_PROVIDER_IOS: 'apns',
      APNS_BASE_URL: apns.baseUrl,
      APNS_KEY_FILE: apns.keyFile,
      APNS_KEY_ID: apns.keyId,
      APNS_TEAM_ID: apns.teamId,
      APNS_TOPIC: apns.topic,
      APNS_CA_FILE: apns.caFile,
      PUSH_RETRY_SCHEDULE: '0.3,0.3',
    });
    token = await app.token();
  });
  afterAll(async () => {
    await app.close();
    await fcm.stop();
    await apns.stop();
  });

  it('delivers each platform through its provider with the filled-in text', async () => {
    const posted = await app.post(token, [pushItem({ nm_push: 'fcm-a', valor: 'Ana,X1' }), pushItem({ nm_push: 'apns-a', nm_plataforma: 'iOS', valor: 'Bia,X2' })]);
    const rows = await app.until('both pushes', () => itemRows(app.sql, posted.body.batch_id), sentAll);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent']);
    expect(fcm.attempts('fcm-a')[0].body).toMatchObject({ message: { token: 'fcm-a', notification: { title: 'Oi Ana', body: 'Seu cupom: X1' }, data: { url_scheme: 'app://promo' } } });
    expect(apns.attempts('apns-a')[0].body).toEqual({ aps: { alert: { title: 'Oi Bia', body: 'Seu cupom: X2' }, sound: 'default' }, url_scheme: 'app://promo' });
    const view = await request(app.http).get(`/api/pushm/bulk/${posted.body.batch_id}`).set('authorization', `Bearer ${token}`);
    expect(view.body.items.data.map((i: { provider_id: string }) => i.provider_id)).toEqual([expect.stringMatching(/^projects\/fake-project\/messages\//), posted.body.items[1].id]);
  });

  it('retries a 503 and a dropped connection, then records the success', async () => {
    fcm.script('flaky-fcm', { status: 503, body: { error: { status: 'UNAVAILABLE' } } });
    apns.script('flaky-apns', { status: 0, hangUp: true });
    const posted = await app.post(token, [pushItem({ nm_push: 'flaky-fcm' }), pushItem({ nm_push: 'flaky-apns', nm_plataforma: 'ios' })]);
    const rows = await app.until('the retried pushes', () => itemRows(app.sql, posted.body.batch_id), sentAll);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([['sent', 2], ['sent', 2]]);
    expect(fcm.attempts('flaky-fcm')).toHaveLength(2);
    expect(apns.attempts('flaky-apns')).toHaveLength(2);
  });

  it('waits as long as a 429 Retry-After asks', async () => {
    fcm.script('busy', { status: 429, body: { error: { status: 'RESOURCE_EXHAUSTED' } }, headers: { 'retry-after': '2' } });
    const posted = await app.post(token, [pushItem({ nm_push: 'busy' })]);
    await app.until('the retried push', () => itemRows(app.sql, posted.body.batch_id), sentAll);
    const [first, second] = fcm.attempts('busy');
    expect(second.at - first.at).toBeGreaterThanOrEqual(2_000);
  });

  it('gives up after the retry schedule and records the last error', async () => {
    fcm.script('down', ...Array.from({ length: 3 }, () => ({ status: 500, body: { error: { status: 'INTERNAL' } } })));
    const posted = await app.post(token, [pushItem({ nm_push: 'down' })]);
    const [row] = await app.until('the failing push', () => itemRows(app.sql, posted.body.batch_id), sentAll);
    expect(row).toMatchObject({ status: 'failed', attempts: 3, error: 'gave up after 3 attempts: fcm 500 INTERNAL' });
  });

  it('records an unregistered token as final, marks the device and skips it next time', async () => {
    fcm.script('gone', FCM_UNREGISTERED);
    apns.script('gone-ios', { status: 410, body: { reason: 'Unregistered' } });
    const first = await app.post(token, [pushItem({ nm_push: 'gone' }), pushItem({ nm_push: 'gone-ios', nm_plataforma: 'ios' })]);
    const rows = await app.until('the first pushes', () => itemRows(app.sql, first.body.batch_id), sentAll);
    expect(rows.map((r) => [r.status, r.attempts, r.error])).toEqual([
      ['invalid_token', 1, 'fcm 404 UNREGISTERED: Requested entity was not found.'],
      ['invalid_token', 1, 'apns 410 Unregistered'],
    ]);
    const second = await app.post(token, [pushItem({ nm_push: 'gone' }), pushItem({ nm_push: 'gone-ios', nm_plataforma: 'ios' })]);
    const later = await app.until('the second pushes', () => itemRows(app.sql, second.body.batch_id), sentAll);
    expect(later.map((r) => r.status)).toEqual(['invalid_token', 'invalid_token']);
    expect(later.every((r) => r.error!.startsWith('skipped: device marked invalid'))).toBe(true);
    expect(fcm.attempts('gone')).toHaveLength(1);
    expect(apns.attempts('gone-ios')).toHaveLength(1);
  });

  it('keeps sending iOS while FCM is down', async () => {
    fcm.script('fcm-outage', ...Array.from({ length: 3 }, () => ({ status: 503, body: {} })));
    const posted = await app.post(token, [pushItem({ nm_push: 'fcm-outage' }), pushItem({ nm_push: 'apns-ok', nm_plataforma: 'ios' })]);
    const rows = await app.until('the iOS push', () => itemRows(app.sql, posted.body.batch_id), (r) => r[1].status === 'sent');
    expect(rows[1].attempts).toBe(1);
    // Let the Android push finish its retries, so nothing of this test is left to send.
    const done = await app.until('the Android push', () => itemRows(app.sql, posted.body.batch_id), sentAll);
    expect(done[0]).toMatchObject({ status: 'failed', attempts: 3 });
  });
});
