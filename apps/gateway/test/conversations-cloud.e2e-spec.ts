import 'reflect-metadata';
import { createHmac } from 'node:crypto';
import { Sql } from '@app/database';
import { NETWORK, request, text, useCloudGateway, type Gateway, type Phone } from './support/gateway-test';
import type { FakeGraphApi } from './support/fake-graph-api';

const SECRET = 'conversations-app-secret';
const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

/** The cloud adapter keeps the window from the network's own notifications: a send outside it never calls the network. */
describe('conversations with the cloud provider (fake network on loopback)', () => {
  const cloud = useCloudGateway({ CLOUD_API_APP_SECRET: SECRET, GATEWAY_SERVICE_WINDOW_SECONDS: '60' });
  let gw: Gateway;
  let graph: FakeGraphApi;
  let phone: Phone;

  beforeEach(async () => {
    ({ gw, graph } = cloud);
    phone = await gw.newPhone({ accessToken: 'EAAG-test-token' });
  });

  /** The network notifies a customer's text, written `secondsAgo` seconds ago. */
  const customerWrites = (from: string, body: string, secondsAgo = 0) => {
    const payload = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: NETWORK,
                metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
                contacts: [{ profile: { name: 'Bea' }, wa_id: from }],
                messages: [
                  {
                    from,
                    id: `wamid.IN.${from}.${secondsAgo}.${phone.phoneId}`,
                    timestamp: String(Math.floor(Date.now() / 1000) - secondsAgo),
                    type: 'text',
                    text: { body },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    return request(gw.http)
      .post('/network/notifications')
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', sign(payload))
      .send(payload)
      .expect(200);
  };
  const send = (body: unknown) =>
    request(gw.http)
      .post('/api/Messages')
      .set(phone.headers)
      .send(body as object);

  it('refuses free-form to a contact who never wrote with 131047 without calling the network; after the customer writes, the send reaches it', async () => {
    const refused = await send(text('15550140001')).expect(400);
    expect(refused.body.error).toMatchObject({ code: 131047, message: '(#131047) Re-engagement message' });
    expect(graph.calls).toHaveLength(0);

    await customerWrites('15550140001', 'Hi there');
    await send(text('15550140001', 'Hello Bea')).expect(200);
    expect(graph.calls).toHaveLength(1);
    const listed = (await request(gw.http).get('/api/Conversations').set(phone.headers).expect(200)).body.data[0];
    expect(listed).toMatchObject({ wa_id: '15550140001', profile_name: 'Bea', window: 'open', unread_count: 1 });
  });

  it("counts the window from the network's timestamp: a message written past the window opens nothing", async () => {
    await customerWrites('15550140002', 'Written long ago', 120);
    await send(text('15550140002')).expect(400, /131047/);
    expect(graph.calls).toHaveLength(0);
    const stored = await gw.get(Sql).one<{ n: string }>(`SELECT count(*) AS n FROM gateway.inbound_messages WHERE wa_id = '15550140002'`);
    expect(stored!.n).toBe('1');
  });

  it("serves a customer's media from the network (its URL, then its bytes, with the account's token), to this account only", async () => {
    const mediaId = `9${Date.now()}`;
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
    const payload = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: NETWORK,
                metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
                contacts: [{ profile: { name: 'Bea' }, wa_id: '15550140004' }],
                messages: [
                  {
                    from: '15550140004',
                    id: `wamid.IMG.${mediaId}`,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: 'image',
                    image: { id: mediaId, mime_type: 'image/jpeg', sha256: 'q83vEjRWeJA=', caption: 'broken' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    await request(gw.http)
      .post('/network/notifications')
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', sign(payload))
      .send(payload)
      .expect(200);
    graph.answer((call) => {
      if (call.path === `/v21.0/${mediaId}?phone_number_id=${phone.phoneId}`) {
        return { status: 200, body: { messaging_product: NETWORK, url: `${graph.url}/lookaside/${mediaId}`, mime_type: 'image/jpeg', id: mediaId } };
      }
      if (call.path === `/lookaside/${mediaId}`) return { status: 200, body: jpeg, headers: { 'content-type': 'image/jpeg' } };
      return undefined;
    });
    const res = await request(gw.http)
      .get(`/api/Medias/${mediaId}`)
      .set(phone.headers)
      .buffer(true)
      .parse((r, done) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(Buffer.compare(res.body as Buffer, jpeg)).toBe(0);
    expect(graph.calls.map((c) => [c.path, c.headers.authorization])).toEqual([
      [`/v21.0/${mediaId}?phone_number_id=${phone.phoneId}`, 'Bearer EAAG-test-token'],
      [`/lookaside/${mediaId}`, 'Bearer EAAG-test-token'],
    ]);
    const stranger = await gw.newPhone({ accessToken: 'other' });
    await request(gw.http).get(`/api/Medias/${mediaId}`).set(stranger.headers).expect(404);
    expect(graph.calls).toHaveLength(2);
  });

  it('refuses an opted-out contact before the network (nothing billed), and refuses POST api/Sandbox/Inbound', async () => {
    await customerWrites('15550140003', 'STOP');
    await send(text('15550140003')).expect(400, /131050/);
    expect(graph.calls).toHaveLength(0);
    const sandbox = await request(gw.http)
      .post('/api/Sandbox/Inbound')
      .set(phone.headers)
      .send({ from: '15550140003', type: 'text', text: { body: 'hi' } })
      .expect(400);
    expect(sandbox.body.error.error_data.details).toContain('sandbox only');
  });
});
