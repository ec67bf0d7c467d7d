import 'reflect-metadata';
import { FCM_UNREGISTERED } from '@app/testkit';
import { dueIn, itemRows, pushItem, request } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(60_000);

const sentAll = (rows: { status: string }[]) => rows.every((r) => !['scheduled', 'sending'].includes(r.status));

describe('push delivery with the sandbox providers (the default)', () => {
  const push = usePush();

  it('sends a push due in 2 s then, not before', async () => {
    const due = dueIn(2_000);
    const posted = await push.app.post(push.token, [pushItem({ ...due }), pushItem({ ...due, nm_plataforma: 'IOS' })]);
    expect(posted.status).toBe(202);
    const rows = await push.app.until('the scheduled pushes', () => itemRows(push.app.sql, posted.body.batch_id), sentAll);
    for (const row of rows) {
      expect(row.status).toBe('sent');
      expect(row.sent_at!.getTime()).toBeGreaterThanOrEqual(due.at);
    }
  });

  it('sends a push with a past or no due time at once', async () => {
    const posted = await push.app.post(push.token, [pushItem({ dt_envio: '2020-01-01', hr_envio: '00:00:00' }), pushItem()]);
    const rows = await push.app.until('the pushes', () => itemRows(push.app.sql, posted.body.batch_id), sentAll);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['sent', 1],
      ['sent', 1],
    ]);
  });

  it('counts what the providers answered in /metrics', async () => {
    const exposed = (await request(push.app.http).get('/metrics').expect(200)).text;
    expect(exposed).toContain(
      '# HELP push_results_total Push notifications by provider (fcm, apns) and outcome (sent, failed, invalid_token).\n# TYPE push_results_total counter\n',
    );
    const counted = async (outcome: string): Promise<number> => {
      const text = (await request(push.app.http).get('/metrics').expect(200)).text;
      const lines = text.split('\n').filter((l) => l.startsWith('push_results_total{') && l.includes(`outcome="${outcome}"`));
      return lines.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
    };
    const before = { sent: await counted('sent'), invalid: await counted('invalid_token') };
    const posted = await push.app.post(push.token, [pushItem(), pushItem({ nm_plataforma: 'ios' }), pushItem({ nm_push: `unregistered-${Date.now()}` })]);
    await push.app.until('the pushes', () => itemRows(push.app.sql, posted.body.batch_id), sentAll);
    // A job counts its outcomes just after it recorded them: wait for the counts to get there.
    const after = await push.app.until(
      'the counts',
      async () => ({ sent: await counted('sent'), invalid: await counted('invalid_token') }),
      (n) => n.sent >= before.sent + 2 && n.invalid >= before.invalid + 1,
    );
    expect(after).toEqual({ sent: before.sent + 2, invalid: before.invalid + 1 });
    expect((await request(push.app.http).get('/metrics').expect(200)).text).toMatch(
      /^push_results_total\{provider="\w+",outcome="sent",service="ingest-push"\} \d+$/m,
    );
  });

  it('marks an unregistered device, then skips and reports later pushes to it', async () => {
    const device = `unregistered-${Math.random().toString(36).slice(2)}`;
    const first = await push.app.post(push.token, [pushItem({ nm_push: device })]);
    const [row] = await push.app.until('the first push', () => itemRows(push.app.sql, first.body.batch_id), sentAll);
    expect(row).toMatchObject({ status: 'invalid_token', attempts: 1, error: 'sandbox: Unregistered' });

    const again = await push.app.post(push.token, [pushItem({ nm_push: device }), pushItem({ nm_push: device, nm_plataforma: 'ios' })]);
    const rows = await push.app.until('the second batch', () => itemRows(push.app.sql, again.body.batch_id), sentAll);
    expect(rows[0]).toMatchObject({ status: 'invalid_token', error: 'skipped: device marked invalid (sandbox: Unregistered)' });
    // Marked per platform: the same id on iOS is its own device (the sandbox calls it unregistered too, on its own).
    expect(rows[1]).toMatchObject({ status: 'invalid_token', error: 'sandbox: Unregistered' });
    const res = await request(push.app.http).get(`/api/pushm/bulk/${again.body.batch_id}`).set('authorization', `Bearer ${push.token}`);
    expect(res.body.counts).toMatchObject({ invalid_token: 2, sent: 0 });
    expect(res.body.items.data[0].error).toMatch(/^skipped/);
  });

  it('keeps the mark per account: another account still sends to that device id', async () => {
    const device = `unregistered-shared-${Math.random().toString(36).slice(2)}`;
    const mine = await push.app.post(push.token, [pushItem({ nm_push: device })]);
    await push.app.until('my push', () => itemRows(push.app.sql, mine.body.batch_id), sentAll);
    const theirs = await push.app.post(await push.app.token(), [pushItem({ nm_push: device })]);
    const [row] = await push.app.until('their push', () => itemRows(push.app.sql, theirs.body.batch_id), sentAll);
    expect(row.error).toBe('sandbox: Unregistered');
  });
});

describe('push delivery through FCM and APNs (loopback fakes)', () => {
  const push = usePush({ fcm: true, apns: true, env: { PUSH_RETRY_SCHEDULE: '0.3,0.3' } });

  it('delivers each platform through its provider with the filled-in text', async () => {
    const posted = await push.app.post(push.token, [
      pushItem({ nm_push: 'fcm-a', valor: 'Ana,X1' }),
      pushItem({ nm_push: 'apns-a', nm_plataforma: 'iOS', valor: 'Bia,X2' }),
    ]);
    const rows = await push.app.until('both pushes', () => itemRows(push.app.sql, posted.body.batch_id), sentAll);
    expect(rows.map((r) => r.status)).toEqual(['sent', 'sent']);
    expect(push.fcm.attempts('fcm-a')[0].body).toMatchObject({
      message: {
        token: 'fcm-a',
        notification: { title: 'Oi Ana', body: 'Seu cupom: X1' },
        data: { url_scheme: 'app://promo', push_id: rows[0].id, open_token: expect.any(String) },
      },
    });
    expect(push.apns.attempts('apns-a')[0].body).toEqual({
      aps: { alert: { title: 'Oi Bia', body: 'Seu cupom: X2' }, sound: 'default' },
      url_scheme: 'app://promo',
      push_id: rows[1].id,
      open_token: expect.any(String),
    });
    const view = await request(push.app.http).get(`/api/pushm/bulk/${posted.body.batch_id}`).set('authorization', `Bearer ${push.token}`);
    expect(view.body.items.data.map((i: { provider_id: string }) => i.provider_id)).toEqual([
      expect.stringMatching(/^projects\/fake-project\/messages\//),
      posted.body.items[1].id,
    ]);
  });

  it('retries a 503 and a dropped connection, then records the success', async () => {
    push.fcm.script('flaky-fcm', { status: 503, body: { error: { status: 'UNAVAILABLE' } } });
    push.apns.script('flaky-apns', { status: 0, hangUp: true });
    const posted = await push.app.post(push.token, [pushItem({ nm_push: 'flaky-fcm' }), pushItem({ nm_push: 'flaky-apns', nm_plataforma: 'ios' })]);
    const rows = await push.app.until('the retried pushes', () => itemRows(push.app.sql, posted.body.batch_id), sentAll);
    expect(rows.map((r) => [r.status, r.attempts])).toEqual([
      ['sent', 2],
      ['sent', 2],
    ]);
    expect(push.fcm.attempts('flaky-fcm')).toHaveLength(2);
    expect(push.apns.attempts('flaky-apns')).toHaveLength(2);
  });

  it('waits as long as a 429 Retry-After asks', async () => {
    push.fcm.script('busy', { status: 429, body: { error: { status: 'RESOURCE_EXHAUSTED' } }, headers: { 'retry-after': '2' } });
    const posted = await push.app.post(push.token, [pushItem({ nm_push: 'busy' })]);
    await push.app.until('the retried push', () => itemRows(push.app.sql, posted.body.batch_id), sentAll);
    const [first, second] = push.fcm.attempts('busy');
    expect(second.at - first.at).toBeGreaterThanOrEqual(2_000);
  });

  it('gives up after the retry schedule and records the last error', async () => {
    push.fcm.script('down', ...Array.from({ length: 3 }, () => ({ status: 500, body: { error: { status: 'INTERNAL' } } })));
    const posted = await push.app.post(push.token, [pushItem({ nm_push: 'down' })]);
    const [row] = await push.app.until('the failing push', () => itemRows(push.app.sql, posted.body.batch_id), sentAll);
    expect(row).toMatchObject({ status: 'failed', attempts: 3, error: 'gave up after 3 attempts: fcm 500 INTERNAL' });
  });

  it('records an unregistered token as final, marks the device and skips it next time', async () => {
    push.fcm.script('gone', FCM_UNREGISTERED);
    push.apns.script('gone-ios', { status: 410, body: { reason: 'Unregistered' } });
    const first = await push.app.post(push.token, [pushItem({ nm_push: 'gone' }), pushItem({ nm_push: 'gone-ios', nm_plataforma: 'ios' })]);
    const rows = await push.app.until('the first pushes', () => itemRows(push.app.sql, first.body.batch_id), sentAll);
    expect(rows.map((r) => [r.status, r.attempts, r.error])).toEqual([
      ['invalid_token', 1, 'fcm 404 UNREGISTERED: Requested entity was not found.'],
      ['invalid_token', 1, 'apns 410 Unregistered'],
    ]);
    const second = await push.app.post(push.token, [pushItem({ nm_push: 'gone' }), pushItem({ nm_push: 'gone-ios', nm_plataforma: 'ios' })]);
    const later = await push.app.until('the second pushes', () => itemRows(push.app.sql, second.body.batch_id), sentAll);
    expect(later.map((r) => r.status)).toEqual(['invalid_token', 'invalid_token']);
    expect(later.every((r) => r.error!.startsWith('skipped: device marked invalid'))).toBe(true);
    expect(push.fcm.attempts('gone')).toHaveLength(1);
    expect(push.apns.attempts('gone-ios')).toHaveLength(1);
  });

  it('keeps sending iOS while FCM is down', async () => {
    push.fcm.script('fcm-outage', ...Array.from({ length: 3 }, () => ({ status: 503, body: {} })));
    const posted = await push.app.post(push.token, [pushItem({ nm_push: 'fcm-outage' }), pushItem({ nm_push: 'apns-ok', nm_plataforma: 'ios' })]);
    const rows = await push.app.until(
      'the iOS push',
      () => itemRows(push.app.sql, posted.body.batch_id),
      (r) => r[1].status === 'sent',
    );
    expect(rows[1].attempts).toBe(1);
    // Let the Android push finish its retries, so nothing of this test is left to send.
    const done = await push.app.until('the Android push', () => itemRows(push.app.sql, posted.body.batch_id), sentAll);
    expect(done[0]).toMatchObject({ status: 'failed', attempts: 3 });
  });
});
