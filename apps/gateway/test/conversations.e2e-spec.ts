import 'reflect-metadata';
import { Sql } from '@app/database';
import { eventually, makeCertificates, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import fc from 'fast-check';
import { CHAT_PROVIDER, type ChatProvider } from '../src/network/chat-provider';
import { fileOf } from './support/media-files';
import {
  approvedTemplate,
  NETWORK,
  openConversation,
  request,
  startGateway,
  templateMessage,
  templateOf,
  text,
  type Gateway,
  type Phone,
} from './support/gateway-test';

jest.setTimeout(30_000);

/** The network's refusal of a free-form message outside the service window. */
const reEngagement = (res: request.Response) => ({
  error: {
    message: '(#131047) Re-engagement message',
    type: 'OAuthException',
    code: 131047,
    error_data: {
      messaging_product: NETWORK,
      details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
    },
    fbtrace_id: res.headers['x-request-id'],
  },
});

describe('conversations and the 24-hour window (sandbox)', () => {
  const certs = makeCertificates();
  let gw: Gateway;
  let phone: Phone;
  let receiver: WebhookReceiver;
  let provider: ChatProvider;

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ tls: certs.signed });
    // A 2-second window, so the test sees it close.
    gw = await startGateway(
      { GATEWAY_SERVICE_WINDOW_SECONDS: '2', WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_RELAY_INTERVAL_MS: '50', WEBHOOK_CACHE_SECONDS: '0' },
      { trustedCertificates: [certs.ca] },
    );
    provider = gw.get<ChatProvider>(CHAT_PROVIDER);
  });
  afterAll(async () => {
    await gw.close();
    await receiver.close();
  });
  beforeEach(async () => {
    phone = await gw.newPhone();
  });
  afterEach(() => jest.restoreAllMocks());

  const send = (body: unknown, p: Phone = phone) =>
    request(gw.http)
      .post('/api/Messages')
      .set(p.headers)
      .send(body as object);
  const inbound = (body: unknown, p: Phone = phone) =>
    request(gw.http)
      .post('/api/Sandbox/Inbound')
      .set(p.headers)
      .send(body as object);
  const conversations = (p: Phone = phone, query = '') => request(gw.http).get(`/api/Conversations${query}`).set(p.headers);
  const thread = (waId: string, p: Phone = phone, query = '') => request(gw.http).get(`/api/Conversations/${waId}/Messages${query}`).set(p.headers);
  const stored = async () =>
    Number(
      (await gw
        .get(Sql)
        .one<{ n: string }>(`SELECT count(*) AS n FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref WHERE p.phone_id = $1`, [phone.phoneId]))!
        .n,
    );

  it('walks a conversation: a customer writes, a reply goes, the window closes, a text is refused (131047, never sent), a template goes; both directions in order', async () => {
    const sent = jest.spyOn(provider, 'send');
    const customer = '15550123456';

    // Nobody wrote yet: free-form is refused before the provider is called.
    const early = await send(text(customer, 'Hello?')).expect(400);
    expect(early.body).toEqual(reEngagement(early));

    const first = await inbound({ from: '+1 555 012 3456', profile_name: 'Ana', type: 'text', text: { body: 'Where is my order?' } }).expect(200);
    expect(first.body).toEqual({
      messaging_product: NETWORK,
      id: expect.stringMatching(/^wamid\./),
      wa_id: customer,
      timestamp: expect.stringMatching(/^\d+$/),
    });
    const open = (await conversations().expect(200)).body.data[0];
    expect(open).toEqual({
      wa_id: customer,
      profile_name: 'Ana',
      last_message: { id: first.body.id, direction: 'inbound', type: 'text', status: 'received', timestamp: expect.any(String), text: 'Where is my order?' },
      unread_count: 1,
      window: 'open',
      window_expires_at: expect.any(String),
      opted_out: false,
    });
    expect((await request(gw.http).get(`/api/Conversations/${customer}`).set(phone.headers).expect(200)).body).toEqual(open);
    const expires = Date.parse(open.window_expires_at);
    expect(expires - Date.parse(open.last_message.timestamp)).toBe(2000);

    const reply = await send(text(customer, 'It ships today')).expect(200);
    expect(sent).toHaveBeenCalledTimes(1);

    // The business reads the customer's message: no longer unread.
    await send({ messaging_product: NETWORK, status: 'read', message_id: first.body.id }).expect(200, { success: true });

    const closed = await eventually(
      async () => {
        const row = (await conversations().expect(200)).body.data[0];
        return row.window === 'closed' ? row : undefined;
      },
      { what: 'the window to close', timeoutMs: 5000 },
    );
    expect(closed).toMatchObject({ unread_count: 0, last_message: { id: reply.body.messages[0].id, direction: 'outbound' } });

    const late = await send(text(customer, 'Anything else?')).expect(400);
    expect(late.body).toEqual(reEngagement(late));
    expect(sent).toHaveBeenCalledTimes(1);

    await approvedTemplate(gw, phone, templateOf('order_update', 'UTILITY'));
    const template = await send(templateMessage(customer, 'order_update')).expect(200);
    expect(sent).toHaveBeenCalledTimes(2);
    expect(await stored()).toBe(2);

    const messages = (await thread(customer).expect(200)).body.data;
    expect(messages.map((m: { id: string; direction: string; type: string }) => [m.direction, m.type, m.id])).toEqual([
      ['outbound', 'template', template.body.messages[0].id],
      ['outbound', 'text', reply.body.messages[0].id],
      ['inbound', 'text', first.body.id],
    ]);
    expect(messages[2]).toMatchObject({
      status: 'read',
      payload: { from: customer, id: first.body.id, type: 'text', text: { body: 'Where is my order?' } },
      statuses: [{ status: 'received' }, { status: 'read' }],
    });
    expect(messages[1].statuses[0]).toMatchObject({ status: 'accepted' });
  });

  it('applies the window to every free-form kind (reactions too), never to templates or read marks; GATEWAY_SERVICE_WINDOW=off does not check it', async () => {
    await send({ messaging_product: NETWORK, to: '15550111111', type: 'reaction', reaction: { message_id: 'wamid.x', emoji: '👍' } }).expect(400, /131047/);
    await send({ messaging_product: NETWORK, to: '15550111111', type: 'location', location: { latitude: 1, longitude: 2 } }).expect(400, /131047/);
    await send({ messaging_product: NETWORK, status: 'read', message_id: 'wamid.unknown' }).expect(200);
    const off = await startGateway({ GATEWAY_SERVICE_WINDOW: 'off' });
    try {
      const other = await off.newPhone();
      await request(off.http).post('/api/Messages').set(other.headers).send(text('15550111111')).expect(200);
    } finally {
      await off.close();
    }
  });

  it('stores a repeated inbound id once, forwards each new one to messages webhooks as the network notifies it', async () => {
    await request(gw.http)
      .post('/api/Webhooks')
      .set(phone.headers)
      .send({ phone: phone.phone, types: ['messages'], endpoint: receiver.url, headers: {} })
      .expect(201);
    const before = receiver.calls.length;
    const body = { from: '15550123457', id: `wamid.CUSTOMER.${phone.phoneId}`, type: 'text', text: { body: 'twice' } };
    await inbound(body).expect(200);
    await inbound(body).expect(200);
    const [call] = await receiver.waitFor(before + 1, (c) => c.json?.entry?.[0]?.changes?.[0]?.value?.metadata?.phone_number_id === phone.phoneId);
    expect(call.json.entry[0].changes[0]).toEqual({
      field: 'messages',
      value: {
        messaging_product: NETWORK,
        metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
        contacts: [{ profile: { name: '' }, wa_id: '15550123457' }],
        messages: [{ from: '15550123457', id: body.id, timestamp: expect.any(String), type: 'text', text: { body: 'twice' } }],
      },
    });
    expect((await thread('15550123457').expect(200)).body.data).toHaveLength(1);
    const stored = await gw.get(Sql).one<{ n: string }>(`SELECT count(*) AS n FROM gateway.inbound_messages WHERE id = $1`, [body.id]);
    expect(stored!.n).toBe('1');
  });

  it("keeps an inbound media's id, type and hash (an upload of the account); another id is refused", async () => {
    const upload = await request(gw.http)
      .post('/api/Medias')
      .set(phone.headers)
      .field('messaging_product', NETWORK)
      .attach('File', fileOf('png'), { filename: 'photo.png', contentType: 'image/png' })
      .expect(200);
    const res = await inbound({ from: '15550123458', type: 'image', image: { id: upload.body.id, caption: 'the box arrived broken' } }).expect(200);
    const [message] = (await thread('15550123458').expect(200)).body.data;
    expect(message).toMatchObject({
      id: res.body.id,
      direction: 'inbound',
      type: 'image',
      payload: { image: { id: upload.body.id, caption: 'the box arrived broken', mime_type: 'image/png', sha256: expect.any(String) } },
    });
    // The media endpoint serves it, to this account only.
    const bytes = await request(gw.http)
      .get(`/api/Medias/${upload.body.id}`)
      .set(phone.headers)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(bytes.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(bytes.body as Buffer, fileOf('png'))).toBe(0);
    await request(gw.http)
      .get(`/api/Medias/${upload.body.id}`)
      .set((await gw.newPhone()).headers)
      .expect(404);
    const refused = await inbound({ from: '15550123458', type: 'image', image: { id: '999' } }).expect(400);
    expect(refused.body.error.error_data.details).toBe('image.id: 999 is not a media id of this account (upload it with POST api/Medias)');
  });

  it('refuses a body that does not match its type, naming the field', async () => {
    const details = async (body: unknown) => (await inbound(body).expect(400)).body.error.error_data.details as string;
    expect(await details({ from: '15550123456', type: 'text' })).toBe('text: is required');
    expect(await details({ from: '15550123456', type: 'text', text: { body: 'x' }, image: { id: '1' } })).toBe('image: is not allowed with type text');
    expect(await details({ from: 'abc', type: 'text', text: { body: 'x' } })).toMatch(/^from: /);
    expect(await details({ from: '15550123456', type: 'fax', text: { body: 'x' } })).toMatch(/^type: /);
  });

  it('pages conversations and a thread newest first with cursors', async () => {
    for (const from of ['15550100001', '15550100002', '15550100003']) await openConversation(gw, phone, from);
    const page1 = (await conversations(phone, '?limit=2').expect(200)).body;
    expect(page1.data.map((c: { wa_id: string }) => c.wa_id)).toEqual(['15550100003', '15550100002']);
    const page2 = (await conversations(phone, `?limit=2&after=${page1.paging.cursors.after}`).expect(200)).body;
    expect(page2.data.map((c: { wa_id: string }) => c.wa_id)).toEqual(['15550100001']);
    expect(page2.paging).toEqual({ cursors: { after: null } });

    for (const body of ['one', 'two', 'three']) await inbound({ from: '15550100009', type: 'text', text: { body } }).expect(200);
    const t1 = (await thread('15550100009', phone, '?limit=2').expect(200)).body;
    const t2 = (await thread('15550100009', phone, `?limit=2&after=${t1.paging.cursors.after}`).expect(200)).body;
    expect([...t1.data, ...t2.data].map((m: { payload: { text: { body: string } } }) => m.payload.text.body)).toEqual(['three', 'two', 'one']);
  });

  it("shows another account's conversations to nobody else: empty list, 404 thread, 403 for its phone_id", async () => {
    await openConversation(gw, phone, '15550123459');
    const stranger = await gw.newPhone();
    expect((await conversations(stranger).expect(200)).body.data).toEqual([]);
    const missing = await thread('15550123459', stranger).expect(404);
    await request(gw.http).get('/api/Conversations/15550123459').set(stranger.headers).expect(404);
    expect(missing.body.error).toMatchObject({ code: 100, error_subcode: 33 });
    await conversations(stranger, `?phone_id=${phone.phoneId}`).expect(403);
    await thread('15550123459', stranger, `?phone_id=${phone.phoneId}`).expect(403);
    // The stranger cannot use the customer's window either.
    await send(text('15550123459'), stranger).expect(400, /131047/);
  });

  it('never answers 5xx to generated wa_ids and queries (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.stringMatching(/^\d{1,40}$/), fc.string({ minLength: 1, maxLength: 40 })),
        fc.dictionary(fc.constantFrom('limit', 'after', 'phone_id'), fc.string({ maxLength: 30 }), { maxKeys: 3 }),
        async (waId, query) => {
          const res = await thread(encodeURIComponent(waId), phone, `?${new URLSearchParams(query).toString()}`);
          expect(res.status).toBeLessThan(500);
          expect([200, 400, 403, 404]).toContain(res.status);
          const list = await conversations(phone, `?${new URLSearchParams(query).toString()}`);
          expect([200, 400, 403]).toContain(list.status);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('never answers 5xx to generated inbound bodies (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            from: fc.oneof(fc.constant('15550123456'), fc.string()),
            type: fc.oneof(fc.constantFrom('text', 'image', 'location', 'reaction', 'contacts'), fc.string()),
            text: fc.oneof(fc.record({ body: fc.string({ maxLength: 50 }) }), fc.jsonValue()),
            location: fc.jsonValue(),
            contacts: fc.jsonValue(),
            id: fc.string({ maxLength: 20 }),
          },
          { requiredKeys: [] },
        ),
        async (body) => {
          const res = await inbound(body);
          expect([200, 400]).toContain(res.status);
        },
      ),
      // Always tried: a `__proto__` key, refused by the body reader before any DTO (it once answered 422).
      { numRuns: 80, examples: [[{ text: JSON.parse('{"__proto__":false}') as fc.JsonValue }]] },
    );
  });
});
