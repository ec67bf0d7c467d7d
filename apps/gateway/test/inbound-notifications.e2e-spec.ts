import 'reflect-metadata';
import { createHmac } from 'node:crypto';
import { Sql } from '@app/database';
import { startFakeGraphApi, type FakeGraphApi } from './support/fake-graph-api';
import { request, startGateway, text, type Gateway, type Phone } from './support/gateway-test';

const SECRET = 'app-secret-for-tests';
const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('network/notifications (cloud: the network notifies the gateway)', () => {
  let gw: Gateway;
  let graph: FakeGraphApi;
  let phone: Phone;

  beforeAll(async () => {
    graph = await startFakeGraphApi();
    gw = await startGateway({ GATEWAY_PROVIDER: 'cloud', CLOUD_API_BASE_URL: graph.url, CLOUD_API_APP_SECRET: SECRET, CLOUD_API_VERIFY_TOKEN: 'verify-me' });
  });
  afterAll(async () => {
    await gw.close();
    await graph.close();
  });
  beforeEach(async () => {
    phone = await gw.newPhone({ accessToken: 't', wabaId: '77' });
  });

  const notify = (payload: unknown, signature?: string) => {
    const body = JSON.stringify(payload);
    return request(gw.http).post('/network/notifications').set('content-type', 'application/json').set('x-hub-signature-256', signature ?? sign(body)).send(body);
  };
  const statuses = (id: string, ...list: string[]) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: '77', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId }, statuses: list.map((status, i) => ({ id, status, timestamp: String(1_700_000_000 + i), recipient_id: '15550102030' })) } }] }],
  });

  it('answers the verification challenge only with the right token', async () => {
    const ok = await request(gw.http).get('/network/notifications').query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-me', 'hub.challenge': '1158201444' }).expect(200);
    expect(ok.text).toBe('1158201444');
    await request(gw.http).get('/network/notifications').query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': '1' }).expect(403);
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
    const inbound = { object: 'whatsapp_business_account', entry: [{ id: '77', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: phone.phoneId }, contacts: [{ profile: { name: 'Ann' }, wa_id: '15550102030' }], messages: [{ from: '15550102030', id: `wamid.IN${phone.phoneId}`, timestamp: '1700000000', type: 'text', text: { body: 'hi' } }] } }] }] };
    await notify(inbound).expect(200);
    await notify(inbound).expect(200);
    const rows = await gw.get(Sql).rows(`SELECT key FROM gateway.inbound_events WHERE key = $1`, [`message:wamid.IN${phone.phoneId}`]);
    expect(rows).toHaveLength(1);
  });

  it('applies a template review result', async () => {
    const created = await request(gw.http).post('/api/Templates').set(phone.headers).send({ name: 'shipped', category: 'UTILITY', language: 'en_US', components: [{ type: 'BODY', text: 'Shipped.' }] }).expect(201);
    await notify({ object: 'whatsapp_business_account', entry: [{ id: '77', changes: [{ field: 'message_template_status_update', value: { event: 'APPROVED', message_template_id: Number(created.body.id), message_template_name: 'shipped', message_template_language: 'en_US', reason: 'NONE' } }] }] }).expect(200);
    await request(gw.http).get(`/api/Templates/${created.body.id}`).set(phone.headers).expect(200, /"status":"APPROVED"/);
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
      const res = await request(gw.http).post('/network/notifications').set('x-hub-signature-256', sign(body)).set('content-type', 'application/json').send(body);
      expect(res.status).toBe(400);
    }
  });
});
