import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import fc from 'fast-check';
import { Sql } from '@app/database';
import { eventually, makeCertificates, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import { STATUS_BUCKETS } from '../src/messages/messages.repository';
import { request, startGateway, text, type Gateway, type Phone } from './support/gateway-test';

/**
 * The lists the gateway adds beside the spec (messages, templates, webhook deliveries and their
 * attempts) and the hourly statistics: the network's `{data, paging}` envelope, newest first,
 * filters, and no phone or account seeing another's.
 */
describe('lists and statistics (sandbox)', () => {
  const certs = makeCertificates();
  let gw: Gateway;
  let receiver: WebhookReceiver;
  let phone: Phone;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ tls: certs.signed });
    gw = await startGateway(
      {
        WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        GATEWAY_SERVICE_WINDOW: 'off',
        WEBHOOK_TYPES: 'messages,message_template_status_update',
        WEBHOOK_RELAY_INTERVAL_MS: '50',
        WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
        WEBHOOK_CACHE_SECONDS: '0',
      },
      { trustedCertificates: [certs.ca] },
    );
  });
  afterAll(async () => {
    await gw.close();
    await receiver.close();
  });
  beforeEach(async () => {
    phone = await gw.newPhone();
  });

  const get = (path: string, p: Phone = phone) => request(gw.http).get(path).set(p.headers);
  const send = async (to: string, p: Phone = phone) =>
    (await request(gw.http).post('/api/Messages').set(p.headers).send(text(to)).expect(200)).body.messages[0].id as string;
  /** Waits until the sandbox played every status of the phone's messages (read, or failed for a 0000 number). */
  const settled = (p: Phone, count: number) =>
    eventually(async () => {
      const { body } = await get('/api/Messages?limit=100', p).expect(200);
      return body.data.length === count && body.data.every((m: { status: string }) => m.status === 'read' || m.status === 'failed') ? body.data : undefined;
    });

  describe('GET api/Messages', () => {
    it('lists the phone’s messages newest first, page by page through paging.next', async () => {
      const ids: string[] = [];
      for (const to of ['15550102031', '15550102032', '15550102033', '15550102034', '15550102035']) ids.push(await send(to));
      const first = await get('/api/Messages?limit=2').expect(200);
      expect(first.body.data.map((m: { id: string }) => m.id)).toEqual([ids[4], ids[3]]);
      expect(first.body.data[0]).toEqual({
        id: ids[4],
        phone_id: phone.phoneId,
        to: '15550102035',
        wa_id: '15550102035',
        type: 'text',
        status: expect.any(String),
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      });
      expect(first.body.paging.next).toContain('limit=2');
      const second = await request(gw.http)
        .get(new URL(first.body.paging.next).pathname + new URL(first.body.paging.next).search)
        .set(phone.headers)
        .expect(200);
      expect(second.body.data.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1]]);
      const third = await get(`/api/Messages?limit=2&after=${second.body.paging.cursors.after}`).expect(200);
      expect(third.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], paging: { cursors: { after: null } } });
    });

    it('filters by status, recipient and time range', async () => {
      const before = new Date(Date.now() - 1000).toISOString();
      const delivered = await send('15550102030');
      const failed = await send('15550100000');
      await settled(phone, 2);
      const ids = async (query: string) => (await get(`/api/Messages?${query}`).expect(200)).body.data.map((m: { id: string }) => m.id);
      expect(await ids('status=failed')).toEqual([failed]);
      expect(await ids('status=read')).toEqual([delivered]);
      expect(await ids('recipient=%2B1%20555%20010%202030')).toEqual([delivered]);
      expect(await ids(`since=${encodeURIComponent(before)}`)).toEqual([failed, delivered]);
      expect(await ids(`until=${encodeURIComponent(before)}`)).toEqual([]);
      expect(await ids(`since=${Math.floor(Date.now() / 1000) + 3600}`)).toEqual([]);
    });

    it('shows no other phone’s messages; phone_id reads a sibling, never a stranger', async () => {
      const sibling = await gw.addPhone(phone);
      const stranger = await gw.newPhone();
      const mine = await send('15550102030');
      const theirs = await send('15550102030', sibling);
      expect((await get('/api/Messages').expect(200)).body.data.map((m: { id: string }) => m.id)).toEqual([mine]);
      expect((await get(`/api/Messages?phone_id=${sibling.phoneId}`).expect(200)).body.data.map((m: { id: string }) => m.id)).toEqual([theirs]);
      expect((await get('/api/Messages', stranger).expect(200)).body.data).toEqual([]);
      await get(`/api/Messages?phone_id=${phone.phoneId}`, stranger).expect(403);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['after=%00', 'after'],
      ['after=bm90LWEtY3Vyc29y', 'after'],
      ['status=SENT%00', 'status'],
      ['recipient=abc', 'recipient'],
      ['since=yesterday', 'since'],
      ['since=999999999999', 'since'],
      ['since=2025-01-02&until=2025-01-01', 'until'],
      ['status=sent&status=read', 'status'],
    ])('refuses %s with 400 naming %s', async (query, field) => {
      const res = await get(`/api/Messages?${query}`).expect(400);
      expect(res.body.error.error_data.details).toMatch(new RegExp(`^${field}`));
    });
  });

  describe('GET api/Templates', () => {
    const create = (name: string, category: string) =>
      request(gw.http)
        .post('/api/Templates')
        .set(phone.headers)
        .send({ name, category, language: 'en_US', components: [{ type: 'BODY', text: `Template ${name}.` }] })
        .expect(201);

    it('lists the account’s templates newest first, filtered by status and category, page by page', async () => {
      const a = (await create('list_a', 'UTILITY')).body.id;
      const b = (await create('list_b', 'MARKETING')).body.id;
      const c = (await create('list_c', 'UTILITY')).body.id;
      const ids = async (query: string, p: Phone = phone) => (await get(`/api/Templates?${query}`, p).expect(200)).body.data.map((t: { id: string }) => t.id);
      expect(await ids('')).toEqual([c, b, a]);
      expect(await ids('category=UTILITY')).toEqual([c, a]);
      const page = await get('/api/Templates?limit=1').expect(200);
      expect(page.body.data).toEqual([
        { id: c, name: 'list_c', language: 'en_US', category: 'UTILITY', status: expect.any(String), components: expect.any(Array) },
      ]);
      expect(await ids(`limit=1&after=${page.body.paging.cursors.after}`)).toEqual([b]);
      // The sandbox approves them after its review delay.
      await eventually(async () => ((await ids('status=APPROVED')).length === 3 ? true : undefined));
      expect(await ids('status=PENDING')).toEqual([]);
      expect(await ids('', await gw.addPhone(phone))).toEqual([c, b, a]);
      expect(await ids('', await gw.newPhone())).toEqual([]);
    });

    it.each([
      ['category=SPAM', 'category'],
      ['status=approved', 'status'],
      ['category[]=UTILITY', 'category[]'],
    ])('refuses %s with 400 naming %s', async (query, field) => {
      const res = await get(`/api/Templates?${query}`).expect(400);
      expect(res.body.error.error_data.details.startsWith(`${field}:`)).toBe(true);
    });
  });

  describe('GET api/Stats', () => {
    it('counts the phone’s messages by hour and status, 24 hourly buckets by default and 168 for 7d', async () => {
      await send('15550102030');
      await send('15550102031');
      await send('15550100000');
      await settled(phone, 3);
      const { body } = await get('/api/Stats').expect(200);
      expect(body).toMatchObject({ phone_id: phone.phoneId, window: '24h', since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00Z$/) });
      expect(body.data).toHaveLength(24);
      const now = body.data.at(-1);
      expect(now.hour).toBe(`${new Date().toISOString().slice(0, 13)}:00:00Z`);
      expect(now).toEqual({ hour: now.hour, total: 3, by_status: { accepted: 0, sent: 0, delivered: 0, read: 2, failed: 1 } });
      expect(body.data.slice(0, -1).every((b: { total: number }) => b.total === 0)).toBe(true);
      const week = await get('/api/Stats?window=7d').expect(200);
      expect(week.body.data).toHaveLength(168);
      expect(week.body.data.at(-1).total).toBe(3);
      expect((await get('/api/Stats', await gw.newPhone()).expect(200)).body.data.every((b: { total: number }) => b.total === 0)).toBe(true);
      await get('/api/Stats?window=30d').expect(400);
    });

    it('is one index-only scan of messages_phone_created_status_idx, even with many phones', async () => {
      const sql = gw.get(Sql);
      const phoneRef = '00000000-0000-4000-8000-0000000000aa';
      await sql.rows(
        `INSERT INTO gateway.messages (id, phone_ref, "to", wa_id, type, status, payload, created_at)
         SELECT 'wamid.STATS' || g, ('00000000-0000-4000-8000-0000000000' || lpad(to_hex(g % 200), 2, '0'))::uuid, '1555', '1555', 'text',
                (ARRAY['sent','delivered','read','failed'])[1 + g % 4], '{}', now() - make_interval(mins => g % 10000)
         FROM generate_series(1, 40000) g ON CONFLICT DO NOTHING`,
      );
      try {
        // As autovacuum keeps it: statistics current, the visibility map set (a VACUUM while another test's
        // transaction is open on the database cannot set it, so again until it could).
        await eventually(
          async () => {
            await sql.rows(`VACUUM (ANALYZE) gateway.messages`);
            const seen = await sql.one<{ all: boolean }>(
              `SELECT relallvisible >= relpages * 0.9 AS all FROM pg_class WHERE oid = 'gateway.messages'::regclass`,
            );
            return seen?.all ? true : undefined;
          },
          { what: 'a visibility map set by VACUUM', timeoutMs: 20_000 },
        );
        const [row] = await sql.rows<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${STATUS_BUCKETS}`, [
          phoneRef,
          new Date(Date.now() - 7 * 86_400_000).toISOString(),
        ]);
        const plan = JSON.stringify(row['QUERY PLAN']);
        expect(plan).toContain('"Index Name":"messages_phone_created_status_idx"');
        expect(plan).toContain('"Node Type":"Index Only Scan"');
        expect(plan).not.toContain('Seq Scan');
        expect(plan.match(/"Relation Name"/g)).toHaveLength(1);
      } finally {
        await sql.rows(`DELETE FROM gateway.messages WHERE id LIKE 'wamid.STATS%'`);
      }
    });
  });

  describe('cursors are input', () => {
    const cursor = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    const lists = ['/api/Messages', '/api/Templates'];

    it.each([
      ['a date that does not exist (2024-02-30)', 'k:2024-02-30T00:00:00.000000Z|x'],
      ['year 0000', 'k:0000-01-01T00:00:00.000000Z|x'],
      ['2024-04-31', 'k:2024-04-31T00:00:00.000000Z|x'],
      ['hour 24', 'k:2024-01-01T24:00:00.000000Z|x'],
      ['an offset cursor on a keyset list', 'o:5'],
    ])('refuses %s with 400 code 100 naming after, on every keyset list', async (_, text) => {
      expect(cursor('k:2024-02-30T00:00:00.000000Z|x')).toBe('azoyMDI0LTAyLTMwVDAwOjAwOjAwLjAwMDAwMFp8eA');
      for (const list of lists) {
        const res = await get(`${list}?after=${cursor(text)}`).expect(400);
        expect(res.body.error).toMatchObject({
          message: '(#100) Invalid parameter',
          code: 100,
          error_data: { details: 'after: must be the cursor of a previous page' },
        });
      }
    });

    it('never answers 5xx to a generated cursor', async () => {
      const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));
      const instant = fc
        .tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(6))
        .map(([y, mo, d, h, mi, s, us]) => `${y}-${mo}-${d}T${h}:${mi}:${s}.${us}Z`);
      const text = fc.oneof(
        fc.tuple(instant, fc.string({ minLength: 1, maxLength: 40 })).map(([at, id]) => `k:${at}|${id}`),
        fc.nat().map((n) => `o:${n}`),
        fc.string({ maxLength: 60 }),
      );
      const raw = fc.oneof(text.map(cursor), fc.stringMatching(/^[A-Za-z0-9_-]{1,120}$/), fc.string({ maxLength: 40 }).map(encodeURIComponent));
      await fc.assert(
        fc.asyncProperty(raw, fc.constantFrom(...lists), async (after, list) => {
          const res = await get(`${list}?after=${after}`);
          expect(res.status).toBeLessThan(500);
        }),
        { numRuns: 150 },
      );
    });
  });

  it('documents the lists, their filters and paging in OpenAPI', async () => {
    const { body } = await request(gw.http).get('/docs-json').expect(200);
    const params = (path: string, method = 'get') => (body.paths[path]?.[method]?.parameters ?? []).map((p: { name: string }) => p.name);
    expect(params('/api/Messages')).toEqual(expect.arrayContaining(['status', 'recipient', 'since', 'until', 'phone_id', 'limit', 'after', 'version']));
    expect(params('/api/Templates')).toEqual(expect.arrayContaining(['status', 'category', 'limit', 'after']));
    expect(params('/api/Stats')).toEqual(expect.arrayContaining(['window', 'phone_id']));
    expect(params('/api/Webhooks/{id}/deliveries')).toEqual(expect.arrayContaining(['id', 'limit', 'after', 'phone_id']));
    expect(params('/api/Webhooks/{id}/deliveries/{deliveryId}/attempts')).toEqual(expect.arrayContaining(['id', 'deliveryId', 'limit', 'after']));
    expect(params('/api/Webhooks/{id}/deliveries/{deliveryId}/redeliver', 'post')).toEqual(expect.arrayContaining(['id', 'deliveryId']));
  });

  describe('webhook delivery log', () => {
    const register = async (endpoint = receiver.url, p: Phone = phone) =>
      (
        await request(gw.http)
          .post('/api/Webhooks')
          .set(p.headers)
          .send({ types: ['messages'], endpoint, headers: { Authorization: 'Bearer r' } })
          .expect(201)
      ).body.id as string;

    it('shows each delivery and its attempts (a 500, then a 200), and redelivers one', async () => {
      const hook = await register();
      let failedOnce = false;
      receiver.answer((call) => {
        if (!failedOnce && call.body.includes(phone.phoneId)) {
          failedOnce = true;
          return { status: 500, body: 'receiver down' };
        }
        return { status: 200 };
      });
      const id = await send('15550102030');
      const deliveries = await eventually(async () => {
        const { body } = await get(`/api/Webhooks/${hook}/deliveries`).expect(200);
        return body.data.length === 3 && body.data.every((d: { status: string }) => d.status === 'succeeded') ? body : undefined;
      });
      expect(deliveries.paging).toEqual({ cursors: { after: null } });
      const retried = deliveries.data.find((d: { attempts: number }) => d.attempts === 2);
      expect(retried).toMatchObject({ webhook_id: hook, event: 'messages', status: 'succeeded', response_status: 200 });
      const attempts = await get(`/api/Webhooks/${hook}/deliveries/${retried.id}/attempts`).expect(200);
      expect(attempts.body.data).toEqual([
        expect.objectContaining({ attempt: 1, trigger: 'schedule', outcome: 'failed', response_status: 500, response_body: 'receiver down' }),
        expect.objectContaining({ attempt: 2, trigger: 'schedule', outcome: 'succeeded', response_status: 200 }),
      ]);
      const page = await get(`/api/Webhooks/${hook}/deliveries?limit=2`).expect(200);
      expect(page.body.data).toHaveLength(2);
      const rest = await get(`/api/Webhooks/${hook}/deliveries?limit=2&after=${page.body.paging.cursors.after}`).expect(200);
      expect(rest.body.data).toHaveLength(1);

      await request(gw.http).post(`/api/Webhooks/${hook}/deliveries/${retried.id}/redeliver`).set(phone.headers).expect(202);
      const again = await eventually(async () => {
        const { body } = await get(`/api/Webhooks/${hook}/deliveries/${retried.id}/attempts`).expect(200);
        return body.data.length === 3 ? body.data : undefined;
      });
      expect(again[2]).toMatchObject({ attempt: 3, trigger: 'redeliver', outcome: 'succeeded' });
      expect(receiver.calls.filter((c) => c.body.includes(id)).length).toBeGreaterThanOrEqual(4);
    });

    it('shows another account nothing: 404 for the webhook, its deliveries and attempts', async () => {
      const hook = await register();
      await send('15550102030');
      const delivery = await eventually(async () => (await get(`/api/Webhooks/${hook}/deliveries`).expect(200)).body.data[0]);
      const stranger = await gw.newPhone();
      await get(`/api/Webhooks/${hook}/deliveries`, stranger).expect(404);
      await get(`/api/Webhooks/${hook}/deliveries/${delivery.id}/attempts`, stranger).expect(404);
      await request(gw.http).post(`/api/Webhooks/${hook}/deliveries/${delivery.id}/redeliver`).set(stranger.headers).expect(404);
      await get(`/api/Webhooks/${hook}/deliveries?phone_id=${phone.phoneId}`, stranger).expect(403);
      await get(`/api/Webhooks/${hook}/deliveries/00000000-0000-4000-8000-000000000000/attempts`).expect(404);
    });

    it('logs a failing delivery at warn with its cause (an untrusted certificate)', async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn');
      const selfSigned = await startWebhookReceiver({ tls: certs.selfSigned });
      try {
        const hook = await register(selfSigned.url);
        await send('15550102030');
        const [logged] = await eventually(() => {
          const calls = warn.mock.calls.filter(([fields]) => (fields as { webhookId?: string })?.webhookId === hook);
          return Promise.resolve(calls.length > 0 ? calls : undefined);
        });
        expect(logged[0]).toMatchObject({ webhookId: hook, attempt: 1, status: null, cause: expect.stringMatching(/certificate/i) });
        expect(String(logged[1])).toMatch(/^webhook delivery failed: .*certificate/i);
        const recorded = await eventually(async () =>
          (await get(`/api/Webhooks/${hook}/deliveries`).expect(200)).body.data.find((d: { error: string | null }) => d.error),
        );
        expect(recorded.error).toMatch(/certificate/i);
        expect(selfSigned.calls).toEqual([]);
      } finally {
        warn.mockRestore();
        await selfSigned.close();
      }
    });
  });
});
