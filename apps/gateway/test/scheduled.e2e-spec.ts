import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Sql } from '@app/database';
import { createTestApp, eventually } from '@app/testkit';
import fc from 'fast-check';
import { AppModule } from '../src/app.module';
import { ScheduledMessagesRepository } from '../src/messages/scheduled-messages.repository';
import { ABANDONED_AFTER_MS } from '../src/messages/scheduled-messages.service';
import { startFakeGraphApi, type FakeGraphApi } from './support/fake-graph-api';
import { openConversation, request, startGateway, text, withPhones, type Gateway, type Phone } from './support/gateway-test';

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

describe('scheduled sends keep the 24-hour window and opt-outs at send time (sandbox)', () => {
  let gw: Gateway;
  let phone: Phone;

  beforeAll(async () => {
    gw = await startGateway({ SCHEDULED_POLL_MS: '100' });
  });
  afterAll(() => gw.close());
  beforeEach(async () => {
    phone = await gw.newPhone();
  });

  const scheduleText = async (to: string) =>
    (
      await request(gw.http)
        .post('/api/Messages')
        .set(phone.headers)
        .send({ ...text(to), send_at: inSeconds(1) })
        .expect(200)
    ).body.messages[0].id as string;
  const settled = (id: string) =>
    eventually(
      async () => {
        const { body } = await request(gw.http).get(`/api/Messages/${id}`).set(phone.headers).expect(200);
        return body.status === 'scheduled' || body.status === 'sending' ? undefined : (body as { status: string; statuses: { errors?: { code: number }[] }[] });
      },
      { what: 'the scheduled message sent or refused', timeoutMs: 10_000 },
    );

  it('a text to a contact who never wrote fails at its time with 131047; one who wrote gets it', async () => {
    const closed = await scheduleText('15550102031');
    await openConversation(gw, phone, '15550102032');
    const open = await scheduleText('15550102032');
    const refused = await settled(closed);
    expect(refused.status).toBe('failed');
    expect(refused.statuses.at(-1)!.errors).toEqual([expect.objectContaining({ code: 131047 })]);
    expect((await settled(open)).status).not.toBe('failed');
  });

  it('a text to a contact who opted out after it was scheduled fails at its time with 131050', async () => {
    await openConversation(gw, phone, '15550102033');
    const id = await scheduleText('15550102033');
    await openConversation(gw, phone, '15550102033', 'PARAR');
    const refused = await settled(id);
    expect(refused.status).toBe('failed');
    expect(refused.statuses.at(-1)!.errors).toEqual([expect.objectContaining({ code: 131050 })]);
  });
});

describe('scheduled sends (sandbox)', () => {
  let gw: Gateway;
  let phone: Phone;

  beforeAll(async () => {
    gw = await startGateway({ SCHEDULED_POLL_MS: '100', GATEWAY_SERVICE_WINDOW: 'off' });
  });
  afterAll(() => gw.close());
  beforeEach(async () => {
    phone = await gw.newPhone();
  });

  const post = (body: Record<string, unknown>, p: Phone = phone) => request(gw.http).post('/api/Messages').set(p.headers).send(body);
  const schedule = async (sendAt: string, to = '15550102030', p: Phone = phone) => {
    const { body } = await post({ ...text(to), send_at: sendAt }, p).expect(200);
    return body.messages[0].id as string;
  };
  const get = (id: string, p: Phone = phone) => request(gw.http).get(`/api/Messages/${id}`).set(p.headers);
  const sentRows = async (p: Phone) =>
    Number(
      (await gw
        .get(Sql)
        .one<{ n: string }>(`SELECT count(*) AS n FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref WHERE p.phone_id = $1`, [p.phoneId]))!.n,
    );

  it('answers with a scheduled id, shows it scheduled, sends it at its time through the send path, then shows the sent message', async () => {
    const sendAt = inSeconds(1.5);
    const res = await post({ ...text('+1 555 010 2030', 'See you at 9'), send_at: sendAt }).expect(200);
    const id = res.body.messages[0].id as string;
    expect(res.body).toEqual({
      messaging_product: 'whatsapp',
      contacts: [{ input: '+1 555 010 2030', wa_id: '15550102030' }],
      messages: [{ id, message_status: 'scheduled' }],
    });
    expect(id).toMatch(/^sched\.[\w-]{32}$/);
    const before = (await get(id).expect(200)).body;
    expect(before).toMatchObject({
      id,
      phone_id: phone.phoneId,
      to: '+1 555 010 2030',
      wa_id: '15550102030',
      type: 'text',
      status: 'scheduled',
      send_at: sendAt.replace('Z', '000Z'),
    });
    expect(before.statuses.map((s: { status: string }) => s.status)).toEqual(['scheduled']);
    expect(await sentRows(phone)).toBe(0);

    const after = await eventually(
      async () => {
        const { body } = await get(id).expect(200);
        return body.status === 'read' ? body : undefined;
      },
      { what: 'the scheduled message sent and read', timeoutMs: 10_000 },
    );
    expect(after.message_id).toMatch(/^wamid\./);
    expect(after.statuses.map((s: { status: string }) => s.status)).toEqual(['scheduled', 'accepted', 'sent', 'delivered', 'read']);
    expect(Date.parse(after.statuses[1].timestamp)).toBeGreaterThanOrEqual(Date.parse(sendAt) - 5);
    const sent = (await get(after.message_id).expect(200)).body;
    expect(sent).toMatchObject({ id: after.message_id, status: 'read', to: '+1 555 010 2030' });
    expect(await sentRows(phone)).toBe(1);
  });

  it('cancels a scheduled message (DELETE), which is never sent; 409 once it is no longer scheduled; 404 for another account', async () => {
    const cancelled = await schedule(inSeconds(1), '15550102031');
    const kept = await schedule(inSeconds(1), '15550102032');
    const stranger = await gw.newPhone();
    await request(gw.http).delete(`/api/Messages/${cancelled}`).set(stranger.headers).expect(404);
    await get(cancelled, stranger).expect(404);
    const res = await request(gw.http).delete(`/api/Messages/${cancelled}`).set(phone.headers).expect(200);
    expect(res.body).toMatchObject({ id: cancelled, status: 'cancelled', statuses: [{ status: 'scheduled' }, { status: 'cancelled' }] });
    const again = await request(gw.http).delete(`/api/Messages/${cancelled}`).set(phone.headers).expect(409);
    expect(again.body.error).toMatchObject({
      code: 100,
      error_data: { details: `id: message ${cancelled} is cancelled; only a scheduled message can be cancelled.` },
    });

    const sent = await eventually(async () => (await get(kept).expect(200)).body.message_id as string | undefined, { timeoutMs: 10_000 });
    await request(gw.http).delete(`/api/Messages/${kept}`).set(phone.headers).expect(409);
    await request(gw.http).delete(`/api/Messages/${sent}`).set(phone.headers).expect(409);
    await request(gw.http).delete('/api/Messages/sched.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').set(phone.headers).expect(404);
    expect((await get(cancelled).expect(200)).body.status).toBe('cancelled');
    expect(await sentRows(phone)).toBe(1);
    const recipients = await gw
      .get(Sql)
      .rows<{ to: string }>(`SELECT "to" FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref WHERE p.phone_id = $1`, [phone.phoneId]);
    expect(recipients).toEqual([{ to: '15550102032' }]);
  });

  it('another phone of the account reads and cancels it; with an Idempotency-Key a repeat schedules nothing more', async () => {
    const second = await gw.addPhone(phone);
    const body = { ...text('15550102030'), send_at: inSeconds(600) };
    const first = await post(body).set('Idempotency-Key', 'reminder-1').expect(200);
    const repeat = await post(body).set('Idempotency-Key', 'reminder-1').expect(200);
    expect(repeat.body).toEqual(first.body);
    const id = first.body.messages[0].id as string;
    expect((await get(id, second).expect(200)).body.status).toBe('scheduled');
    await request(gw.http).delete(`/api/Messages/${id}`).set(second.headers).expect(200);
    const stored = await gw
      .get(Sql)
      .one<{ n: string }>(`SELECT count(*) AS n FROM gateway.scheduled_messages s JOIN gateway.phones p ON p.id = s.phone_ref WHERE p.phone_id = $1`, [
        phone.phoneId,
      ]);
    expect(stored!.n).toBe('1');
  });

  it('refuses a send_at in the past, more than 30 days ahead, or not ISO 8601 with an offset, in the network body', async () => {
    const details = async (sendAt: unknown) => (await post({ ...text('15550102030'), send_at: sendAt }).expect(400)).body.error.error_data.details as string;
    expect(await details(inSeconds(-1))).toBe('send_at: must be in the future');
    expect(await details(inSeconds(31 * 86_400))).toBe('send_at: must be at most 30 days ahead');
    for (const bad of ['2026-12-24 09:00:00Z', '2026-12-24T09:00:00', '2027-02-30T09:00:00Z', '2027-01-01T24:00:00Z', 1767258000, ''])
      expect(await details(bad)).toMatch(/^send_at: must be an ISO 8601 time/);
    expect(await details(null)).toBe('send_at: is not allowed here');
    expect(
      (await post({ messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.X', send_at: inSeconds(60) }).expect(400)).body.error.error_data.details,
    ).toBe('send_at: is not a known parameter');
    expect((await post({ ...text('15550102030'), send_at: inSeconds(29 * 86_400) }).expect(200)).body.messages[0].message_status).toBe('scheduled');
    expect(
      (await post({ ...text('15550102030'), send_at: new Date(Date.now() + 3_600_000).toISOString().replace('Z', '+00:00') }).expect(200)).body.messages[0].id,
    ).toMatch(/^sched\./);
  });

  it("a refusal at send time (a template not approved) fails the message with the network's error, and nothing is recorded as sent", async () => {
    const id = (
      await post({
        messaging_product: 'whatsapp',
        to: '15550102030',
        type: 'template',
        template: { name: 'never_created', language: { code: 'en_US' } },
        send_at: inSeconds(0.5),
      }).expect(200)
    ).body.messages[0].id as string;
    const failed = await eventually(
      async () => {
        const { body } = await get(id).expect(200);
        return body.status === 'failed' ? body : undefined;
      },
      { what: 'the send refused', timeoutMs: 10_000 },
    );
    expect(failed.statuses).toEqual([
      { status: 'scheduled', timestamp: expect.any(String) },
      {
        status: 'failed',
        timestamp: expect.any(String),
        errors: [expect.objectContaining({ code: 132001, error_data: { details: expect.stringContaining('never_created') } })],
      },
    ]);
    expect(failed.message_id).toBeUndefined();
    expect(await sentRows(phone)).toBe(0);
  });

  it('a message left sending past its lease (its worker killed mid-send) becomes failed and is never sent again', async () => {
    const id = await schedule(inSeconds(600));
    await gw.get(Sql).rows(`UPDATE gateway.scheduled_messages SET state = 'sending', claimed_at = now() - interval '6 minutes' WHERE id = $1`, [id]);
    expect(await gw.get(ScheduledMessagesRepository).failAbandoned(ABANDONED_AFTER_MS, { code: 1, message: 'Send outcome unknown' })).toBeGreaterThanOrEqual(1);
    const { body } = await get(id).expect(200);
    expect(body).toMatchObject({
      status: 'failed',
      statuses: [{ status: 'scheduled' }, { status: 'failed', errors: [{ code: 1, message: 'Send outcome unknown' }] }],
    });
    await request(gw.http).delete(`/api/Messages/${id}`).set(phone.headers).expect(409);
  });

  it('generated send_at values and ids never give a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.jsonValue(),
        ),
        fc.string({ minLength: 1, maxLength: 80 }),
        async (sendAt, id) => {
          const res = await post({ ...text('15550102030'), send_at: sendAt });
          expect([200, 400]).toContain(res.status);
          if (res.status === 400) expect(res.body.error.code).toBe(100);
          const path = `/api/Messages/${encodeURIComponent(id)}`;
          expect([200, 400, 404, 409]).toContain((await request(gw.http).delete(path).set(phone.headers)).status);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('scheduled sends over the throughput tier (sandbox, 2 messages per second)', () => {
  let gw: Gateway;

  beforeAll(async () => {
    gw = await startGateway({ SCHEDULED_POLL_MS: '100', MESSAGES_PER_SECOND: '2', GATEWAY_SERVICE_WINDOW: 'off' });
  });
  afterAll(() => gw.close());

  it('sends what the tier takes at the time and the rest a second or so later, each once', async () => {
    const phone = await gw.newPhone();
    const sendAt = inSeconds(1);
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5])
      ids.push(
        (
          await request(gw.http)
            .post('/api/Messages')
            .set(phone.headers)
            .send({ ...text(`1555030000${n}`), send_at: sendAt })
            .expect(200)
        ).body.messages[0].id,
      );
    const sent = await eventually(
      async () => {
        const rows = await gw
          .get(Sql)
          .rows<{ state: string; attempts: number }>(`SELECT state, attempts FROM gateway.scheduled_messages WHERE id = ANY($1)`, [ids]);
        return rows.every((r) => r.state === 'sent') ? rows : undefined;
      },
      { what: 'all five sent', timeoutMs: 15_000 },
    );
    expect(Math.max(...sent.map((r) => r.attempts))).toBeGreaterThan(1);
    const messages = await gw
      .get(Sql)
      .rows<{ to: string }>(`SELECT "to" FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref WHERE p.phone_id = $1`, [phone.phoneId]);
    expect(messages.map((m) => m.to).sort()).toEqual(['15550300001', '15550300002', '15550300003', '15550300004', '15550300005']);
  });
});

/**
 * Exactly once across restarts: messages scheduled a few seconds ahead on two replicas, every replica stopped before any
 * is due, two new ones booted on the same database and Redis prefix; each message reaches the (fake) network once, within
 * 2 s of its time, and none of the cancelled ones does.
 */
describe('scheduled sends across a restart of every worker (cloud, loopback fake network)', () => {
  const COUNT = Number(process.env.SCHEDULED_TEST_COUNT ?? 200);
  // A few seconds: time to schedule them all and restart every replica on a loaded CI machine before they are due.
  const AHEAD_S = Number(process.env.SCHEDULED_TEST_AHEAD_S ?? 8);
  let graph: FakeGraphApi;
  const open: Gateway[] = [];
  const callTimes = new Map<string, number[]>();
  const prefix = `test:${process.env.TEST_RUN_ID}:scheduled-${randomUUID().slice(0, 8)}:`;

  beforeAll(async () => {
    graph = await startFakeGraphApi();
    graph.answer((call) => {
      if (call.method === 'POST' && call.path.endsWith('/messages')) {
        const to = (JSON.parse(call.body.toString()) as { to: string }).to;
        callTimes.set(to, [...(callTimes.get(to) ?? []), Date.now()]);
      }
      return undefined;
    });
  });
  afterAll(async () => {
    await Promise.all(open.splice(0).map((gw) => gw.close()));
    await graph.close();
  });

  const boot = async (): Promise<Gateway> => {
    const gw = withPhones(
      await createTestApp(AppModule, {
        REDIS_PREFIX: prefix,
        GATEWAY_PROVIDER: 'cloud',
        GATEWAY_SERVICE_WINDOW: 'off',
        CLOUD_API_BASE_URL: graph.url,
        SCHEDULED_POLL_MS: '100',
        MESSAGES_PER_SECOND: '1000',
      }),
    );
    open.push(gw);
    return gw;
  };

  it(`sends each of ${COUNT} messages once, within 2 s of its time, after every replica restarted; cancelled ones never reach the network`, async () => {
    // One first: the first boot of a Jest worker creates its database.
    const a = await boot();
    const b = await boot();
    const phones = await Promise.all([0, 1, 2, 3].map(() => a.newPhone({ accessToken: 'EAAG-scheduled' })));
    const sendAt = inSeconds(AHEAD_S);
    const to = (i: number) => `1555${String(7_000_000 + i)}`;
    const ids: string[] = [];
    for (let i = 0; i < COUNT; i += 50) {
      const batch = Array.from({ length: Math.min(50, COUNT - i) }, (_, j) => i + j);
      ids.push(
        ...(await Promise.all(
          batch.map(async (n) => {
            const { body } = await request((n % 2 ? a : b).http)
              .post('/api/Messages')
              .set(phones[n % phones.length].headers)
              .send({ ...text(to(n)), send_at: sendAt })
              .expect(200);
            return body.messages[0].id as string;
          }),
        )),
      );
    }
    const cancelled = new Set(ids.filter((_, i) => i % 10 === 0));
    for (const id of cancelled) {
      const owner = phones[ids.indexOf(id) % phones.length];
      await request(a.http).delete(`/api/Messages/${id}`).set(owner.headers).expect(200);
    }
    const scheduledAt = Date.now();
    // Every replica stops, and two new ones boot, before the messages are due.
    await Promise.all(open.splice(0).map((gw) => gw.close()));
    expect(graph.calls).toHaveLength(0);
    const [c] = await Promise.all([boot(), boot()]);
    const restartedAt = Date.now();
    expect(restartedAt).toBeLessThan(Date.parse(sendAt));

    const due = ids.filter((id) => !cancelled.has(id));
    await eventually(() => (graph.calls.length >= due.length ? true : undefined), {
      what: `${due.length} sends at the fake network`,
      timeoutMs: Date.parse(sendAt) - Date.now() + 20_000,
    });
    // Every message's claim is settled: a row marked sent or cancelled is never sent again, so the calls so far are all there will be.
    await eventually(
      async () => {
        const { n } = (await c
          .get(Sql)
          .one<{ n: number }>(`SELECT count(*)::int AS n FROM gateway.scheduled_messages WHERE id = ANY($1) AND state NOT IN ('sent', 'cancelled')`, [ids]))!;
        return n === 0 ? true : undefined;
      },
      { what: 'every scheduled message sent or cancelled', timeoutMs: 20_000 },
    );
    expect(graph.calls).toHaveLength(due.length);
    const wanted = new Set(ids.map((_, i) => to(i)).filter((_, i) => !cancelled.has(ids[i])));
    expect(new Set(callTimes.keys())).toEqual(wanted);
    const late = [...callTimes.values()].map(([at]) => at - Date.parse(sendAt));
    late.sort((x, y) => x - y);
    process.stdout.write(
      `scheduled: ${due.length} sent, ${cancelled.size} cancelled; replicas back ${Date.parse(sendAt) - restartedAt} ms before the time (restart ${restartedAt - scheduledAt} ms); ` +
        `sent after their time: min ${late[0]} ms, median ${late[late.length >> 1]} ms, max ${late[late.length - 1]} ms\n`,
    );
    expect(late[0]).toBeGreaterThanOrEqual(-50);
    expect(late[late.length - 1]).toBeLessThanOrEqual(2000);
    const states = await c
      .get(Sql)
      .rows<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM gateway.scheduled_messages WHERE id = ANY($1) GROUP BY 1 ORDER BY 1`, [ids]);
    expect(states).toEqual([
      { state: 'cancelled', n: cancelled.size },
      { state: 'sent', n: due.length },
    ]);
  });
});
