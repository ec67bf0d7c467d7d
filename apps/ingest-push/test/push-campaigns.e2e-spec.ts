import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createTestApp, testRedis, type TestApp } from '@app/testkit';
import { PushWorkerModule } from '../src/push-worker.module';
import { itemRows, pushItem, request } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(120_000);

// 24 zones, every offset from UTC-11 to UTC+13 but two, and a half-hour one.
const ZONES = [
  'Pacific/Pago_Pago',
  'Pacific/Honolulu',
  'America/Anchorage',
  'America/Los_Angeles',
  'America/Denver',
  'America/Chicago',
  'America/New_York',
  'America/Sao_Paulo',
  'America/Noronha',
  'Atlantic/Azores',
  'UTC',
  'Europe/Berlin',
  'Europe/Athens',
  'Europe/Moscow',
  'Asia/Dubai',
  'Asia/Karachi',
  'Asia/Kolkata',
  'Asia/Dhaka',
  'Asia/Bangkok',
  'Asia/Shanghai',
  'Asia/Tokyo',
  'Australia/Brisbane',
  'Pacific/Noumea',
  'Pacific/Auckland',
];

/** What `zone`'s wall clock shows at `instant` (`YYYY-MM-DD`, `HH:MM:SS`). */
function wall(zone: string, instant: number): { dt_envio: string; hr_envio: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return { dt_envio: `${parts.year}-${parts.month}-${parts.day}`, hr_envio: `${parts.hour}:${parts.minute}:${parts.second}` };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('push campaigns: local time, quiet hours, frequency caps', () => {
  const push = usePush();
  const settings = (token: string, body: unknown) =>
    request(push.app.http)
      .put('/api/pushm/settings')
      .set(bearer(token))
      .send(body as object);

  it('delivery "local": 2,400 items over 24 zones, each due at 09:00 on its own clock (answer, items and dry run agree)', async () => {
    const pushs = Array.from({ length: 2400 }, (_, i) => pushItem({ timezone: ZONES[i % 24] }));
    const body = { pushs, delivery: 'local', hr_envio: '09:00:00', dt_envio: '2030-06-01' };
    const dry = await request(push.app.http).post('/api/pushm/bulk?dry_run=true').set(bearer(push.token)).send(body).expect(200);
    const res = await request(push.app.http).post('/api/pushm/bulk').set(bearer(push.token)).send(body).expect(202);
    expect(res.body.accepted).toBe(2400);
    for (const item of res.body.items as Array<{ index: number; due_at: string }>) {
      expect(wall(ZONES[item.index % 24], Date.parse(item.due_at))).toEqual({ dt_envio: '2030-06-01', hr_envio: '09:00:00' });
      expect(dry.body.items[item.index].due_at).toBe(item.due_at);
    }
    const page = await request(push.app.http).get(`/api/pushm/bulk/${res.body.batch_id}?per_page=24`).set(bearer(push.token)).expect(200);
    expect(page.body.items.data.map((i: { due_at: string }) => i.due_at)).toEqual(res.body.items.slice(0, 24).map((i: { due_at: string }) => i.due_at));
  });

  it('sends each item of 24 zones at its own local time (a short offset: 3 s from now on every clock), within a second of it', async () => {
    const at = Math.ceil((Date.now() + 3000) / 1000) * 1000;
    const pushs = ZONES.map((zone) => pushItem({ timezone: zone, ...wall(zone, at) }));
    const res = await push.app.post(push.token, pushs).expect(202);
    expect(new Set(res.body.items.map((i: { due_at: string }) => Date.parse(i.due_at)))).toEqual(new Set([at]));
    const rows = await push.app.until(
      'all sent',
      () => itemRows(push.app.sql, res.body.batch_id),
      (r) => r.every((x) => x.status === 'sent'),
    );
    for (const row of rows) {
      expect(row.sent_at!.getTime()).toBeGreaterThanOrEqual(at);
      expect(row.sent_at!.getTime() - at).toBeLessThan(60_000);
    }
  });

  it('keeps settings per account: GET before any PUT is all null, PUT replaces, another account sees its own', async () => {
    const token = await push.app.token();
    const other = await push.app.token();
    expect((await request(push.app.http).get('/api/pushm/settings').set(bearer(token)).expect(200)).body).toEqual({
      cap_max_pushes: null,
      cap_window_hours: null,
      quiet_start: null,
      quiet_end: null,
      updated_at: null,
    });
    const put = await settings(token, { cap_max_pushes: 3, cap_window_hours: 24, quiet_start: '22:00', quiet_end: '08:00' }).expect(200);
    expect(put.body).toMatchObject({ cap_max_pushes: 3, cap_window_hours: 24, quiet_start: '22:00', quiet_end: '08:00', updated_at: expect.any(String) });
    expect((await request(push.app.http).get('/api/pushm/settings').set(bearer(token)).expect(200)).body).toEqual(put.body);
    expect((await request(push.app.http).get('/api/pushm/settings').set(bearer(other)).expect(200)).body.cap_max_pushes).toBeNull();
    await request(push.app.http).get('/api/pushm/settings').expect(401);
    await settings(token, { cap_max_pushes: 3 }).expect(422);
    await settings(token, { quiet_start: '25:00', quiet_end: '08:00' }).expect(422);
    expect((await settings(token, {}).expect(200)).body.quiet_start).toBeNull();
  });

  it('never answers 5xx to any settings body or batch option', async () => {
    const token = await push.app.token();
    const value = fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.jsonValue(), fc.constantFrom('22:00', '08:00', 3, 24, 'local', 'drop', '09:00:00'));
    const settingsBody = fc.dictionary(fc.constantFrom('cap_max_pushes', 'cap_window_hours', 'quiet_start', 'quiet_end', 'other', 'valueOf'), value);
    const batchBody = fc
      .dictionary(fc.constantFrom('delivery', 'hr_envio', 'dt_envio', 'throttle_per_minute', 'quiet_hours', 'other'), value)
      .map((options) => ({ ...options, pushs: [pushItem({ timezone: 'Asia/Tokyo' })] }));
    await fc.assert(
      fc.asyncProperty(settingsBody, batchBody, async (s, b) => {
        expect((await settings(token, s)).status).toBeLessThan(500);
        const res = await request(push.app.http).post('/api/pushm/bulk?dry_run=true').set(bearer(token)).send(b);
        expect([200, 400, 422]).toContain(res.status);
      }),
      { numRuns: 60 },
    );
  });

  it('quiet hours 22:00–08:00: due at 23:00 local goes out at 08:00 local (hold), or is quiet and never sent (drop)', async () => {
    const token = await push.app.token();
    await settings(token, { quiet_start: '22:00', quiet_end: '08:00' }).expect(200);
    const item = () => pushItem({ timezone: 'America/Sao_Paulo', dt_envio: '2030-03-10', hr_envio: '23:00:00' });
    const held = await push.app.post(token, [item(), pushItem({ timezone: 'America/Sao_Paulo', dt_envio: '2030-03-10', hr_envio: '12:00:00' })]).expect(202);
    expect(held.body.items.map((i: { due_at: string }) => i.due_at)).toEqual(['2030-03-11T11:00:00.000000Z', '2030-03-10T15:00:00.000000Z']);
    const dropped = await request(push.app.http)
      .post('/api/pushm/bulk')
      .set(bearer(token))
      .send({ pushs: [item(), item()], quiet_hours: 'drop' })
      .expect(202);
    expect(dropped.body.items.map((i: { status: string }) => i.status)).toEqual(['quiet', 'quiet']);
    const summary = await request(push.app.http).get(`/api/pushm/bulk/${dropped.body.batch_id}`).set(bearer(token)).expect(200);
    expect(summary.body.counts).toMatchObject({ quiet: 2, scheduled: 0 });
    expect(summary.body.expected_finish_at).toBeNull();
    expect(summary.body.items.data.map((i: { status: string }) => i.status)).toEqual(['quiet', 'quiet']);
  });

  it('a cap of 3 per 24 h: the 4th push to a token is capped and not sent; pushes to another token are not', async () => {
    const token = await push.app.token();
    await settings(token, { cap_max_pushes: 3, cap_window_hours: 24 }).expect(200);
    const device = `capped-${randomUUID()}`;
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await push.app.post(token, [pushItem({ nm_push: device }), pushItem()]).expect(202);
      const rows = await push.app.until(
        'the batch ends',
        () => itemRows(push.app.sql, res.body.batch_id),
        (r) => r.every((x) => x.status !== 'scheduled' && x.status !== 'sending'),
      );
      statuses.push(rows[0].status);
      expect(rows[1].status).toBe('sent');
      if (i === 3) {
        expect(rows[0].error).toBe('frequency cap: 3 pushes in 24 h reached');
        const summary = await request(push.app.http).get(`/api/pushm/bulk/${res.body.batch_id}`).set(bearer(token)).expect(200);
        expect(summary.body.counts).toMatchObject({ capped: 1, sent: 1 });
      }
    }
    expect(statuses).toEqual(['sent', 'sent', 'sent', 'capped']);
    // Another account's pushes to the same device token count on their own.
    const other = await push.app.token();
    const res = await push.app.post(other, [pushItem({ nm_push: device })]).expect(202);
    await push.app.until(
      "the other account's push",
      () => itemRows(push.app.sql, res.body.batch_id),
      (r) => r[0].status === 'sent',
    );
  });
});

describe('push campaigns: a throttled batch on two workers', () => {
  let second: TestApp | undefined;
  afterAll(() => second?.close());
  const push = usePush({
    fcm: true,
    env: {
      REDIS_URL: testRedis().url,
      REDIS_CLUSTER_NODES: testRedis().clusterNodes ?? '',
      REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:${randomUUID().slice(0, 8)}:`,
      PUSH_ITEMS_PER_JOB: '50',
    },
  });

  it('400 pushes at 3,000 a minute: never more than 50 in any second at the fake, done no sooner than 10 % before the expected time and by 1.5 times it', async () => {
    second = await createTestApp(PushWorkerModule, { ...push.env, PUSH_WORKERS: 'only' });
    const res = await request(push.app.http)
      .post('/api/pushm/bulk')
      .set(bearer(push.token))
      .send({ pushs: Array.from({ length: 400 }, (_, i) => pushItem({ nm_push: `t-${i}` })), throttle_per_minute: 3000 })
      .expect(202);
    const created = Date.now();
    const summary = await request(push.app.http).get(`/api/pushm/bulk/${res.body.batch_id}`).set(bearer(push.token)).expect(200);
    expect(summary.body.throttle_per_minute).toBe(3000);
    const expectedMs = Date.parse(summary.body.expected_finish_at) - created;
    await push.app.until(
      'all sent',
      () => itemRows(push.app.sql, res.body.batch_id),
      (r) => r.every((x) => x.status === 'sent'),
    );
    const times = push.fcm.received
      .filter((r) => r.device.startsWith('t-'))
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(times).toHaveLength(400);
    let most = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while (times[i] - times[j] >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    expect(most).toBeLessThanOrEqual(50);
    const tookMs = times[times.length - 1] - created;
    // Slots a busy worker misses are given up, not used late, so a loaded machine finishes late, never early.
    expect(tookMs).toBeGreaterThanOrEqual(expectedMs * 0.9);
    expect(tookMs).toBeLessThanOrEqual(expectedMs * 1.5);
  });
});

describe('push campaigns: opens', () => {
  const push = usePush({ fcm: true, apns: true });
  const open = (body: unknown) =>
    request(push.app.http)
      .post('/api/pushm/opened')
      .send(body as object);

  it('carries push_id and a signed open_token in each payload; an open counts once, a forged token is 401, stats match the fake', async () => {
    const token = await push.app.token();
    const pushs = [
      ...Array.from({ length: 6 }, (_, i) => pushItem({ nm_push: `open-a-${i}` })),
      pushItem({ nm_push: 'open-ios-0', nm_plataforma: 'iOS' }),
      pushItem({ nm_push: 'open-late', dt_envio: '2030-01-01', hr_envio: '09:00:00' }),
    ];
    const res = await push.app.post(token, pushs).expect(202);
    await push.app.until(
      'seven sent',
      () => itemRows(push.app.sql, res.body.batch_id),
      (r) => r.filter((x) => x.status === 'sent').length === 7,
    );
    const ids = res.body.items.map((i: { id: string }) => i.id);
    const android = Array.from({ length: 6 }, (_, i) => push.fcm.attempts(`open-a-${i}`)[0].body.message as { data: Record<string, string> });
    android.forEach((message, i) =>
      expect(message.data).toEqual({ url_scheme: 'app://promo', push_id: ids[i], open_token: expect.stringMatching(/^[\w-]{43}$/) }),
    );
    const ios = push.apns.attempts('open-ios-0')[0].body as { push_id: string; open_token: string };
    expect(ios.push_id).toBe(ids[6]);

    // The app reports three Android opens and the iOS one; one of them twice.
    const opened = [...android.slice(0, 3).map((m) => m.data), ios].map(({ push_id, open_token }) => ({ push_id, open_token }));
    for (const payload of opened) {
      const first = await open(payload).expect(200);
      expect(first.body).toEqual({ push_id: payload.push_id, opened_at: expect.any(String), counted: true });
    }
    const replay = await open(opened[0]).expect(200);
    expect(replay.body.counted).toBe(false);

    // Forged: another push's token, a changed token, a token for a push not sent yet is still refused without the key.
    expect((await open({ push_id: android[4].data.push_id, open_token: android[3].data.open_token }).expect(401)).body).toEqual({
      error: 'Unauthorized',
      message: 'The open_token does not belong to this push_id.',
    });
    // Forged: the last character changed (to another one: a token may already end in A).
    const sent = android[4].data.open_token;
    await open({ push_id: android[4].data.push_id, open_token: `${sent.slice(0, -1)}${sent.endsWith('A') ? 'B' : 'A'}` }).expect(401);
    await open({ push_id: 'not-a-uuid', open_token: 'x' }).expect(422);
    await open({ push_id: ids[7], open_token: 'x'.repeat(43) }).expect(401);

    const summary = await request(push.app.http).get(`/api/pushm/bulk/${res.body.batch_id}`).set(bearer(token)).expect(200);
    expect(summary.body).toMatchObject({ opened: 4, open_rate: Math.round((4 / 7) * 10_000) / 10_000, counts: { sent: 7, scheduled: 1 } });
    const list = await request(push.app.http).get('/api/pushm/bulk').set(bearer(token)).expect(200);
    expect(list.body.data[0]).toMatchObject({ opened: 4, open_rate: summary.body.open_rate });
    const stats = await request(push.app.http).get('/api/pushm/stats').set(bearer(token)).expect(200);
    expect(stats.body).toMatchObject({ sent: 7, opened: 4, open_rate: summary.body.open_rate });
    expect(stats.body.data.at(-1).opened).toBe(4);
    // Another account sees none of it.
    const other = await request(push.app.http)
      .get('/api/pushm/stats')
      .set(bearer(await push.app.token()))
      .expect(200);
    expect(other.body).toMatchObject({ sent: 0, opened: 0, open_rate: null });
  });

  it('answers 409 to the open of a push that was not sent, with its own valid token', async () => {
    const token = await push.app.token();
    const res = await push.app.post(token, [pushItem({ dt_envio: '2030-01-01', hr_envio: '09:00:00' })]).expect(202);
    const id = res.body.items[0].id as string;
    const { OpenTokens } = await import('../src/push/push-open-token');
    const { PushConfig } = await import('../src/push/push.config');
    const signed = push.app.get(OpenTokens).sign(id);
    expect(push.app.get(PushConfig).openTokenSecret.length).toBeGreaterThanOrEqual(32);
    expect((await open({ push_id: id, open_token: signed }).expect(409)).body).toMatchObject({ message: expect.stringMatching(/not sent/) });
  });
});

describe('push campaigns: Web Push', () => {
  const push = usePush({ web: true });

  it('sends web items through the same outbox and lane: the push service decrypts each payload; a 410 marks the subscription invalid', async () => {
    const token = await push.app.token();
    const live = push.web.subscribe('browser-live');
    const gone = push.web.subscribe('browser-gone');
    push.web.script('browser-gone', { status: 410, body: { reason: 'unsubscribed' } });
    const res = await push.app
      .post(token, [
        pushItem({ nm_plataforma: 'Web', nm_push: JSON.stringify(live), valor: 'Ana,W1' }),
        pushItem({ nm_plataforma: 'web', nm_push: JSON.stringify(gone) }),
        pushItem({ nm_plataforma: 'web', nm_push: 'an-fcm-token' }),
      ])
      .expect(202);
    expect(res.body.items[2].errors.nm_push[0]).toMatch(/subscription as JSON/);
    const rows = await push.app.until(
      'both web pushes end',
      () => itemRows(push.app.sql, res.body.batch_id),
      (r) => r.every((x) => x.status === 'sent' || x.status === 'invalid_token'),
    );
    expect(rows.map((r) => r.status)).toEqual(['sent', 'invalid_token']);
    expect(push.web.problems).toEqual([]);
    expect(push.web.attempts('browser-live')[0].body).toEqual({
      title: 'Oi Ana',
      body: 'Seu cupom: W1',
      url_scheme: 'app://promo',
      push_id: rows[0].id,
      open_token: expect.stringMatching(/^[\w-]{43}$/),
    });
    // The subscription is marked: a later push to it is skipped, not sent.
    const again = await push.app.post(token, [pushItem({ nm_plataforma: 'web', nm_push: JSON.stringify(gone) })]).expect(202);
    const [skipped] = await push.app.until(
      'the skip',
      () => itemRows(push.app.sql, again.body.batch_id),
      (r) => r[0].status === 'invalid_token',
    );
    expect(skipped.error).toMatch(/^skipped: device marked invalid/);
    expect(push.web.attempts('browser-gone')).toHaveLength(1);
    const stats = await request(push.app.http).get('/api/pushm/stats').set(bearer(token)).expect(200);
    expect(stats.body.data.at(-1).by_platform.web).toEqual({ sent: 1, failed: 0, invalid: 2 });
  });
});
