import 'reflect-metadata';
import { createHmac, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Sql } from '@app/database';
import { makeCertificates, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import fc from 'fast-check';
import { startFakeGraphApi, type FakeGraphApi } from './support/fake-graph-api';
import { request, startGateway, text, type Gateway, type Phone } from './support/gateway-test';

const SECRET = 'app-secret-for-tests';
const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('network/notifications (cloud: the network notifies the gateway)', () => {
  const certs = makeCertificates();
  let gw: Gateway;
  let graph: FakeGraphApi;
  let receiver: WebhookReceiver;
  let phone: Phone;

  beforeAll(async () => {
    graph = await startFakeGraphApi();
    receiver = await startWebhookReceiver({ tls: certs.signed });
    gw = await startGateway(
      {
        GATEWAY_PROVIDER: 'cloud',
        CLOUD_API_BASE_URL: graph.url,
        CLOUD_API_APP_SECRET: SECRET,
        CLOUD_API_VERIFY_TOKEN: 'verify-me',
        WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
        GATEWAY_SERVICE_WINDOW: 'off',
        WEBHOOK_RELAY_INTERVAL_MS: '50',
        WEBHOOK_CACHE_SECONDS: '0',
      },
      { trustedCertificates: [certs.ca] },
    );
  });
  afterAll(async () => {
    await gw.close();
    await graph.close();
    await receiver.close();
  });
  beforeEach(async () => {
    phone = await gw.newPhone({ accessToken: 't', wabaId: '77' });
  });

  const notify = (payload: unknown, signature?: string) => {
    const body = JSON.stringify(payload);
    return request(gw.http)
      .post('/network/notifications')
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', signature ?? sign(body))
      .send(body);
  };
  const statuses = (id: string, ...list: string[]) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '77',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
              statuses: list.map((status, i) => ({ id, status, timestamp: String(1_700_000_000 + i), recipient_id: '15550102030' })),
            },
          },
        ],
      },
    ],
  });

  it('answers the verification challenge only with the right token', async () => {
    const ok = await request(gw.http)
      .get('/network/notifications')
      .query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me', 'hub.challenge': '1158201444' })
      .expect(200);
    expect(ok.text).toBe('1158201444');
    await request(gw.http).get('/network/notifications').query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': '1' }).expect(403);
    // The challenge is echoed: only its documented form, checked by the query's DTO.
    await request(gw.http)
      .get('/network/notifications')
      .query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me', 'hub.challenge': '<script>' })
      .expect(400);
    await request(gw.http).get('/network/notifications').query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me' }).expect(400);
  });

  it('records statuses as the message history, once each, in arrival order', async () => {
    const { body } = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
    const id = body.messages[0].id;
    await notify(statuses(id, 'sent', 'delivered')).expect(200, { success: true });
    await notify(statuses(id, 'delivered', 'read')).expect(200);
    await notify(statuses(id, 'read')).expect(200);
    const message = (await request(gw.http).get(`/api/Messages/${id}`).set(phone.headers).expect(200)).body;
    expect(message.status).toBe('read');
    expect(message.statuses.map((s: { status: string }) => s.status)).toEqual(['accepted', 'sent', 'delivered', 'read']);
  });

  it('refuses a body whose signature does not match (nothing recorded)', async () => {
    const { body } = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
    const id = body.messages[0].id;
    const payload = statuses(id, 'delivered');
    await notify(payload, sign(JSON.stringify(payload), 'other-secret')).expect(403);
    await notify(payload, 'sha256=00').expect(403);
    await request(gw.http).post('/network/notifications').set('content-type', 'application/json').send(JSON.stringify(payload)).expect(403);
    const count = await gw.get(Sql).one<{ n: string }>(`SELECT count(*) AS n FROM gateway.message_statuses WHERE message_id = $1`, [id]);
    expect(count!.n).toBe('1');
  });

  it('takes an inbound customer message once', async () => {
    const inbound = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '77',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { phone_number_id: phone.phoneId },
                contacts: [{ profile: { name: 'Ann' }, wa_id: '15550102030' }],
                messages: [{ from: '15550102030', id: `wamid.IN${phone.phoneId}`, timestamp: '1700000000', type: 'text', text: { body: 'hi' } }],
              },
            },
          ],
        },
      ],
    };
    await notify(inbound).expect(200);
    await notify(inbound).expect(200);
    const rows = await gw.get(Sql).rows(`SELECT key FROM gateway.inbound_events WHERE key = $1`, [`message:wamid.IN${phone.phoneId}`]);
    expect(rows).toHaveLength(1);
  });

  it('applies a template review result', async () => {
    const created = await request(gw.http)
      .post('/api/Templates')
      .set(phone.headers)
      .send({ name: 'shipped', category: 'UTILITY', language: 'en_US', components: [{ type: 'BODY', text: 'Shipped.' }] })
      .expect(201);
    await notify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '77',
          changes: [
            {
              field: 'message_template_status_update',
              value: {
                event: 'APPROVED',
                message_template_id: Number(created.body.id),
                message_template_name: 'shipped',
                message_template_language: 'en_US',
                reason: 'NONE',
              },
            },
          ],
        },
      ],
    }).expect(200);
    await request(gw.http)
      .get(`/api/Templates/${created.body.id}`)
      .set(phone.headers)
      .expect(200, /"status":"APPROVED"/);
  });

  it('records a status whose timestamp is not a number at the time it arrived', async () => {
    const { body } = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
    const id = body.messages[0].id;
    const payload = statuses(id, 'delivered');
    (payload.entry[0].changes[0].value.statuses[0] as { timestamp: unknown }).timestamp = { toString: false };
    const before = Date.now();
    await notify(payload).expect(200);
    const message = (await request(gw.http).get(`/api/Messages/${id}`).set(phone.headers).expect(200)).body;
    expect(message.status).toBe('delivered');
    expect(new Date(message.statuses.at(-1).timestamp).getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
  });

  it('refuses garbage with 4xx', async () => {
    for (const body of ['not json', '{"entry":5}', '[]']) {
      const res = await request(gw.http)
        .post('/network/notifications')
        .set('x-hub-signature-256', sign(body))
        .set('content-type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
    }
  });

  const send = async (from: Phone) =>
    (await request(gw.http).post('/api/Messages').set(from.headers).send(text('15550102030')).expect(200)).body.messages[0].id as string;
  const historyOf = async (from: Phone, id: string) =>
    (await request(gw.http).get(`/api/Messages/${id}`).set(from.headers).expect(200)).body.statuses.map((s: { status: string }) => s.status);
  const inboundTaken = async (id: string) => (await gw.get(Sql).rows(`SELECT 1 FROM gateway.inbound_events WHERE key = $1`, [`message:${id}`])).length === 1;
  const inboundMessage = (phoneId: string, id: string) => ({
    field: 'messages',
    value: {
      messaging_product: 'whatsapp',
      metadata: { phone_number_id: phoneId },
      messages: [{ from: '15550102030', id, timestamp: '1700000000', type: 'text', text: { body: 'hi' } }],
    },
  });
  const statusChange = (phoneId: string, status: Record<string, unknown>) => ({
    field: 'messages',
    value: { messaging_product: 'whatsapp', metadata: { phone_number_id: phoneId }, statuses: [status] },
  });

  it('logs and skips malformed parts, takes the rest, and answers 200', async () => {
    const id = await send(phone);
    const later = `wamid.LATER${randomUUID()}`;
    const ok = (status: string) => ({ id, status, timestamp: '1700000000', recipient_id: '15550102030' });
    const payload = {
      object: 'whatsapp_business_account',
      entry: [
        null,
        { id: '77', changes: 'not a list' },
        {
          id: '77',
          changes: [
            null,
            { field: 'messages', value: null },
            { field: 'messages\\u0000', value: {} },
            statusChange(phone.phoneId, { ...ok('sent'), timestamp: 99_999_999_999_999 }),
            statusChange(phone.phoneId, { ...ok('delivered'), id: `${id}\\u0000` }),
            statusChange(phone.phoneId, { ...ok('delivered'), id: `${id}\\ud800` }),
            statusChange(phone.phoneId, { ...ok('delivered'), id: 'w'.repeat(100_000) }),
            statusChange(phone.phoneId, { ...ok('delivered'), errors: [{ code: 1, title: 'bad\\u0000' }] }),
            statusChange('1\\u00002', ok('delivered')),
            inboundMessage(phone.phoneId, `wamid.BAD\\ud800`),
            { field: 'message_template_status_update', value: { event: 'APPROVED', message_template_id: '\\u0000', reason: 'NONE' } },
            { field: 'account_update', value: { metadata: { phone_number_id: phone.phoneId }, note: 'a\\udc00b' } },
            statusChange(phone.phoneId, ok('read')),
            inboundMessage(phone.phoneId, later),
          ],
        },
      ],
    };
    // Escapes written into the JSON text, as the network would send them.
    const body = JSON.stringify(payload).replace(/\\\\u/g, '\\u');
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      await request(gw.http)
        .post('/network/notifications')
        .set('content-type', 'application/json')
        .set('x-hub-signature-256', sign(body))
        .send(body)
        .expect(200, { success: true });
      // Each skipped part is named by its path and the rule it broke, never quoted.
      const skipped = warn.mock.calls
        .filter(([, message]) => message === 'malformed notification part skipped')
        .map(([part]) => (part as { path: string }).path);
      expect(skipped).toEqual([
        'entry[0]',
        'entry[1]',
        'entry[2].changes[0]',
        'entry[2].changes[1]',
        'entry[2].changes[2]',
        'entry[2].changes[4].value.statuses[0]',
        'entry[2].changes[5].value.statuses[0]',
        'entry[2].changes[6].value.statuses[0]',
        'entry[2].changes[7].value.statuses[0]',
        'entry[2].changes[8]',
        'entry[2].changes[9].value.messages[0]',
        'entry[2].changes[10]',
        'entry[2].changes[11]',
      ]);
      expect(JSON.stringify(warn.mock.calls)).not.toContain('w'.repeat(1000));
    } finally {
      warn.mockRestore();
    }
    // The huge timestamp is the time it arrived; the bad ids and errors changed nothing; what came after them was taken.
    expect(await historyOf(phone, id)).toEqual(['accepted', 'sent', 'read']);
    expect(await inboundTaken(later)).toBe(true);
  });

  it("ignores a status naming one phone but carrying another phone's message id: nothing changes, nothing is delivered", async () => {
    const a1 = await gw.newPhone({ accessToken: 't' });
    const b = await gw.newPhone({ accessToken: 't' });
    await request(gw.http)
      .post('/api/Webhooks')
      .set(a1.headers)
      .send({ types: ['messages'], endpoint: receiver.url })
      .expect(201);
    const bMessage = await send(b);
    const a1Message = await send(a1);
    await notify({
      object: 'whatsapp_business_account',
      entry: [{ id: '1', changes: [statusChange(a1.phoneId, { id: bMessage, status: 'read', timestamp: '1700000000', recipient_id: '15550102030' })] }],
    }).expect(200);
    expect(await historyOf(b, bMessage)).toEqual(['accepted']);
    const recorded = await gw.get(Sql).rows(`SELECT 1 FROM gateway.webhook_deliveries WHERE data::text LIKE $1`, [`%${bMessage}%`]);
    expect(recorded).toEqual([]);
    // A1's own message still goes through, and it is all A1's webhook gets.
    await notify({
      object: 'whatsapp_business_account',
      entry: [{ id: '1', changes: [statusChange(a1.phoneId, { id: a1Message, status: 'delivered', timestamp: '1700000000', recipient_id: '15550102030' })] }],
    }).expect(200);
    await receiver.waitFor(1, (c) => c.body.includes(a1Message));
    expect(receiver.calls.filter((c) => c.body.includes(bMessage))).toEqual([]);
  });

  it('ignores a template review from a business account the template is not of', async () => {
    const created = await request(gw.http)
      .post('/api/Templates')
      .set(phone.headers)
      .send({ name: `t${randomUUID().slice(0, 8)}`, category: 'UTILITY', language: 'en_US', components: [{ type: 'BODY', text: 'Hi.' }] })
      .expect(201);
    const review = (wabaId: string) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: wabaId,
          changes: [{ field: 'message_template_status_update', value: { event: 'REJECTED', message_template_id: created.body.id, reason: 'ABUSIVE_CONTENT' } }],
        },
      ],
    });
    await notify(review('999999')).expect(200);
    await request(gw.http)
      .get(`/api/Templates/${created.body.id}`)
      .set(phone.headers)
      .expect(200, /"status":"PENDING"/);
  });

  describe('signed bodies made of anything (property)', () => {
    const nasty = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', 'w'.repeat(100_000), '99999999999999', '-1', '1e400', 'NaN', ''),
    );
    const scalar = fc.oneof(nasty, fc.integer(), fc.double(), fc.constantFrom(99_999_999_999_999, -1, 1e308, 0), fc.boolean(), fc.constant(null));
    const junk = fc.oneof(scalar, fc.jsonValue({ maxDepth: 3 }), fc.array(scalar, { maxLength: 3 }), fc.dictionary(nasty, scalar, { maxKeys: 3 }));
    const status = fc.record(
      {
        id: fc.oneof(nasty, fc.constant('wamid.X')),
        status: fc.oneof(nasty, fc.constantFrom('sent', 'delivered', 'read', 'failed')),
        timestamp: scalar,
        recipient_id: scalar,
        errors: fc.oneof(junk, fc.array(junk, { maxLength: 12 })),
      },
      { requiredKeys: [] },
    );
    const metadata = fc.oneof(junk, fc.record({ phone_number_id: fc.oneof(nasty, fc.constant('PHONE')) }));
    const value = fc.oneof(
      junk,
      fc.record(
        {
          metadata,
          statuses: fc.oneof(junk, fc.array(fc.oneof(status, junk), { maxLength: 4 })),
          messages: fc.oneof(junk, fc.array(fc.oneof(junk, fc.record({ id: nasty, text: junk })), { maxLength: 3 })),
        },
        { requiredKeys: [] },
      ),
      fc.record({ event: fc.oneof(nasty, fc.constant('APPROVED')), message_template_id: scalar, reason: scalar }, { requiredKeys: [] }),
    );
    const change = fc.oneof(
      junk,
      fc.record({ field: fc.oneof(nasty, fc.constantFrom('messages', 'message_template_status_update', 'account_update')), value }, { requiredKeys: [] }),
    );
    const entry = fc.oneof(junk, fc.record({ id: scalar, changes: fc.oneof(junk, fc.array(change, { maxLength: 5 })) }, { requiredKeys: [] }));

    it('never answers 5xx, and still takes the valid change at the end', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(entry, { maxLength: 4 }), async (entries) => {
          const later = `wamid.P${randomUUID()}`;
          const text = JSON.stringify({
            object: 'whatsapp_business_account',
            entry: [...entries, { id: '77', changes: [inboundMessage(phone.phoneId, later)] }],
          }).replace(/"PHONE"/g, JSON.stringify(phone.phoneId));
          const res = await request(gw.http)
            .post('/network/notifications')
            .set('content-type', 'application/json')
            .set('x-hub-signature-256', sign(text))
            .send(text);
          expect(res.status).toBe(200);
          expect(await inboundTaken(later)).toBe(true);
        }),
        { numRuns: 150 },
      );
    });
  });
});
