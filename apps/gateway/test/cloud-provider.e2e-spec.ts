import 'reflect-metadata';
import { Sql } from '@app/database';
import type { FakeGraphApi } from './support/fake-graph-api';
import { fileOf } from './support/media-files';
import { NETWORK, request, text, useCloudGateway, type Gateway, type Phone } from './support/gateway-test';

describe('cloud provider against a fake Graph API on loopback', () => {
  // Not about the service window: free-form messages go to contacts who never wrote.
  const cloud = useCloudGateway({ GATEWAY_SERVICE_WINDOW: 'off' });
  let gw: Gateway;
  let graph: FakeGraphApi;
  let phone: Phone;

  beforeEach(async () => {
    ({ gw, graph } = cloud);
    phone = await gw.newPhone({ accessToken: 'EAAG-test-token', wabaId: '1234567890' });
  });

  const send = (body: unknown, p: Phone = phone) =>
    request(gw.http)
      .post('/api/Messages')
      .set(p.headers)
      .send(body as object);
  const stored = async () =>
    Number(
      (await gw
        .get(Sql)
        .one<{ n: string }>(`SELECT count(*) AS n FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref WHERE p.phone_id = $1`, [phone.phoneId]))!
        .n,
    );

  it('posts the message to /{version}/{phone-number-id}/messages with the account token, and answers with the network ids', async () => {
    const body = text('+15550102030', 'Hi \ud83d\ude00');
    const res = await send(body).expect(200);
    expect(res.body).toEqual({
      messaging_product: NETWORK,
      contacts: [{ input: '+15550102030', wa_id: '15550102030' }],
      messages: [{ id: expect.stringMatching(/^wamid\.FAKE1\./) }],
    });
    expect(graph.calls).toHaveLength(1);
    const [call] = graph.calls;
    expect(call).toMatchObject({
      method: 'POST',
      path: `/v21.0/${phone.phoneId}/messages`,
      headers: { authorization: 'Bearer EAAG-test-token', 'content-type': 'application/json' },
    });
    expect(JSON.parse(call.body.toString())).toEqual(body);
    expect(call.body.toString()).toContain('\\ud83d\\ude00');
    expect(await stored()).toBe(1);
  });

  it('answers 200 with the network id when the network repeats an id already recorded, keeping the first record (never a 500 after a send)', async () => {
    const id = `wamid.REPEATED.${phone.phoneId}`;
    graph.answer((call) => ({
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [{ input: JSON.parse(call.body.toString()).to, wa_id: '15550102030' }], messages: [{ id }] },
    }));
    await send(text('15550102030', 'first')).expect(200);
    const again = await send(text('15550102030', 'second')).expect(200);
    expect(again.body.messages).toEqual([{ id }]);
    expect(graph.calls).toHaveLength(2);
    expect(await stored()).toBe(1);
    const kept = await gw.get(Sql).one<{ payload: unknown }>(`SELECT payload FROM gateway.messages WHERE id = $1`, [id]);
    expect(kept!.payload).toMatchObject({ text: { body: 'first' } });
  });

  it('keeps the network code and message of a refusal; its 5xx become 502; stores nothing', async () => {
    const refusal = {
      error: {
        message: '(#131030) Recipient phone number not in allowed list',
        type: 'OAuthException',
        code: 131030,
        error_data: { messaging_product: 'whatsapp', details: 'Recipient phone number not in allowed list' },
        fbtrace_id: 'A1',
      },
    };
    graph.answer(() => ({ status: 400, body: refusal }));
    const res = await send(text('15550102030')).expect(400);
    expect(res.body.error).toMatchObject({
      message: refusal.error.message,
      type: 'OAuthException',
      code: 131030,
      error_data: { messaging_product: NETWORK, details: 'Recipient phone number not in allowed list' },
    });
    graph.answer(() => ({ status: 500, body: { error: { message: 'An unknown error has occurred.', type: 'OAuthException', code: 1 } } }));
    expect((await send(text('15550102030')).expect(502)).body.error.code).toBe(1);
    graph.answer(() => ({ status: 200, body: 'not the send answer' }));
    await send(text('15550102030')).expect(502);
    expect(await stored()).toBe(0);
  });

  it('passes throttling on as 429 with the network code and Retry-After', async () => {
    graph.answer(() => ({
      status: 429,
      headers: { 'retry-after': '3' },
      body: {
        error: {
          message: '(#130429) Rate limit hit',
          type: 'OAuthException',
          code: 130429,
          error_data: { details: 'Cloud API message throughput has been reached.' },
        },
      },
    }));
    const res = await send(text('15550102030')).expect(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.body.error.code).toBe(130429);
  });

  it('answers 504 (code 2) when the network does not answer in time', async () => {
    graph.answer(() => 'hang');
    const slow = await send(text('15550102030')).expect(504);
    expect(slow.body.error).toMatchObject({ code: 2, error_data: { details: 'The chat network did not answer in time.' } });
    expect(await stored()).toBe(0);
  });

  it('refuses to call the network for an account minted without a token', async () => {
    const bare = await gw.newPhone();
    const res = await send(text('15550102030'), bare).expect(400);
    expect(res.body.error.error_data.details).toContain('access token');
    expect(graph.calls).toHaveLength(0);
  });

  it('streams an upload through to /{phone-number-id}/media and returns the network id', async () => {
    const file = fileOf('png', 64 * 1024);
    const res = await request(gw.http)
      .post('/api/Medias')
      .set(phone.headers)
      .field('messaging_product', NETWORK)
      .attach('File', file, { filename: 'a.png', contentType: 'image/png' })
      .expect(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^9000\d+$/) });
    const [call] = graph.calls;
    expect(call).toMatchObject({ method: 'POST', path: `/v21.0/${phone.phoneId}/media`, headers: { authorization: 'Bearer EAAG-test-token' } });
    expect(call.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const raw = call.body.toString('latin1');
    expect(raw).toContain('name="messaging_product"\r\n\r\nwhatsapp');
    expect(raw).toContain('name="type"\r\n\r\nimage/png');
    expect(call.body.includes(file)).toBe(true);
    await send({ messaging_product: NETWORK, to: '15550102030', type: 'image', image: { id: res.body.id } }).expect(200);
  });

  it('creates templates at /{waba-id}/message_templates and keeps them', async () => {
    const body = { name: 'order_update', category: 'UTILITY', language: 'en_US', components: [{ type: 'BODY', text: 'Order shipped.' }] };
    const res = await request(gw.http).post('/api/Templates').set(phone.headers).send(body).expect(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^8000\d+$/), status: 'PENDING', category: 'MARKETING' });
    expect(graph.calls[0]).toMatchObject({ method: 'POST', path: '/v21.0/1234567890/message_templates' });
    expect(JSON.parse(graph.calls[0].body.toString())).toEqual({ ...body, allow_category_change: false });
    await request(gw.http).get(`/api/Templates/${res.body.id}`).set(phone.headers).expect(200);
  });

  it('reads and updates the profile at /{phone-number-id}/whatsapp_business_profile', async () => {
    const read = await request(gw.http).get('/api/Profiles').set(phone.headers).expect(200);
    expect(read.body).toEqual({ data: [{ messaging_product: 'whatsapp', about: 'From the network', vertical: 'RETAIL', websites: [] }] });
    expect(graph.calls[0]).toMatchObject({
      method: 'GET',
      path: expect.stringMatching(new RegExp(`^/v21.0/${phone.phoneId}/whatsapp_business_profile\\?fields=`)),
    });
    await request(gw.http).post('/api/Profiles').set(phone.headers).send({ messaging_product: NETWORK, about: 'Hello \u2603' }).expect(201);
    expect(graph.calls[1].body.toString()).toBe('{"messaging_product":"whatsapp","about":"Hello \\u2603"}');
  });

  it('marks messages read at the network', async () => {
    await send({ messaging_product: NETWORK, status: 'read', message_id: 'wamid.IN1' }).expect(200, { success: true });
    expect(JSON.parse(graph.calls[0].body.toString())).toEqual({ messaging_product: NETWORK, status: 'read', message_id: 'wamid.IN1' });
  });
});
