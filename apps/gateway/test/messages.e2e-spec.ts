import 'reflect-metadata';
import { Pruner, Sql } from '@app/database';
import { eventually } from '@app/testkit';
import { NETWORK, request, text, useGateway, type Gateway, type Phone } from './support/gateway-test';

describe('POST api/Messages (sandbox)', () => {
  let gw: Gateway;
  let phone: Phone;

  // Not about the service window: free-form messages go to contacts who never wrote.
  useGateway({ app: (g) => (gw = g), phone: (p) => (phone = p) }, { GATEWAY_SERVICE_WINDOW: 'off' });

  const send = (body: unknown, headers: Record<string, string> = phone.headers) =>
    request(gw.http)
      .post('/api/Messages')
      .set(headers)
      .send(body as object);
  const count = async () =>
    Number(
      (await gw
        .get(Sql)
        .one<{ n: string }>(`SELECT count(*) AS n FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref WHERE p.phone_id = $1`, [phone.phoneId]))!
        .n,
    );

  it('sends a text and answers exactly the network response', async () => {
    const res = await send(text('+1 (555) 010-2030')).expect(200);
    expect(res.body).toEqual({
      messaging_product: NETWORK,
      contacts: [{ input: '+1 (555) 010-2030', wa_id: '15550102030' }],
      messages: [{ id: expect.stringMatching(/^wamid\.[\w-]+$/) }],
    });
    expect(await count()).toBe(1);
  });

  it('plays sent, delivered, read into the status history (GET api/Messages/{id})', async () => {
    const { body } = await send(text('15550102030')).expect(200);
    const id = body.messages[0].id;
    const message = await eventually(async () => {
      const m: { status: string; statuses: { status: string }[] } = (
        await request(gw.http)
          .get(`/api/Messages/${encodeURIComponent(id)}`)
          .set(phone.headers)
          .expect(200)
      ).body;
      return m.status === 'read' ? m : undefined;
    });
    expect(message).toMatchObject({ id, to: '15550102030', wa_id: '15550102030', type: 'text', status: 'read', phone_id: phone.phoneId });
    expect(message.statuses.map((s) => s.status)).toEqual(['accepted', 'sent', 'delivered', 'read']);
  });

  it('fails a recipient ending in 0000 with the undeliverable error', async () => {
    const { body } = await send(text('15550100000')).expect(200);
    const id = body.messages[0].id;
    const message = await eventually(async () => {
      const m: { status: string; statuses: { status: string; errors?: { code: number }[] }[] } = (
        await request(gw.http)
          .get(`/api/Messages/${encodeURIComponent(id)}`)
          .set(phone.headers)
          .expect(200)
      ).body;
      return m.status === 'failed' ? m : undefined;
    });
    expect(message.statuses.map((s) => s.status)).toEqual(['accepted', 'failed']);
    expect(message.statuses[1].errors).toEqual([expect.objectContaining({ code: 131026 })]);
  });

  it('answers 401 in the network body without or with a wrong apikey, 400 for a wrong version', async () => {
    const none = await send(text('15550102030'), { version: '6.0' }).expect(401);
    expect(none.body).toEqual({
      error: {
        message: expect.any(String),
        type: 'OAuthException',
        code: 190,
        error_data: { messaging_product: NETWORK, details: expect.any(String) },
        fbtrace_id: expect.any(String),
      },
    });
    await send(text('15550102030'), { apikey: `${phone.key}x`, version: '6.0' }).expect(401);
    await send(text('15550102030'), { apikey: 'garbage', version: '6.0' }).expect(401);
    for (const version of [undefined, '7.0', 'latest']) {
      const headers: Record<string, string> = { apikey: phone.key };
      if (version) headers.version = version;
      const res = await send(text('15550102030'), headers).expect(400);
      expect(res.body.error.error_data.details).toBe('version: header must be one of 4.0, 5.0, 6.0');
    }
    for (const version of ['4.0', '5.0']) await send(text('15550102030'), { apikey: phone.key, version }).expect(200);
    expect(await count()).toBe(2);
  });

  it.each([
    ['no messaging_product', { to: '15550102030', type: 'text', text: { body: 'x' } }, 'messaging_product'],
    ['a body over 4096', text('15550102030', 'x'.repeat(4097)), 'text.body: must be at most 4096 characters long'],
    ['an unknown type', { ...text('15550102030'), type: 'fax' }, 'type: must be one of'],
    ['no recipient', { messaging_product: NETWORK, type: 'text', text: { body: 'x' } }, 'to: is required'],
    ['a recipient of 16 digits (E.164 has at most 15)', text('+1 555 0102 0304 0506'), 'to: must be a phone number in digits with its country code'],
    ['4 reply buttons', interactiveButtons(4), 'interactive.action.buttons: must hold at most 3 items'],
    [
      'a long button title',
      {
        ...interactiveButtons(1),
        interactive: { type: 'button', body: { text: 'b' }, action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'x'.repeat(21) } }] } },
      },
      'interactive.action.buttons.0.reply.title: must be at most 20',
    ],
    [
      'an unknown media id',
      { messaging_product: NETWORK, to: '15550102030', type: 'image', image: { id: '123' } },
      'image.id: 123 is not a media id of this account',
    ],
    [
      'both id and link',
      { messaging_product: NETWORK, to: '15550102030', type: 'image', image: { id: '1', link: 'https://x.example/a.png' } },
      'image: must hold exactly one of id or link',
    ],
    ['a template that does not exist', template('nope'), 'template name (nope) does not exist in en_US'],
  ])('refuses %s with 400 naming the field and rule, sending nothing', async (_, body, details) => {
    const res = await send(body).expect(400);
    expect(res.body.error).toMatchObject({ code: expect.any(Number), error_data: { details: expect.stringContaining(details) } });
    expect(await count()).toBe(0);
  });

  it('sends every other kind', async () => {
    const to = '15550102030';
    const bodies = [
      interactiveButtons(3),
      {
        messaging_product: NETWORK,
        to,
        type: 'interactive',
        interactive: {
          type: 'list',
          header: { type: 'text', text: 'h' },
          body: { text: 'b' },
          footer: { text: 'f' },
          action: { button: 'Pick', sections: [{ title: 's', rows: [{ id: 'r1', title: 'Row', description: 'd' }] }] },
        },
      },
      {
        messaging_product: NETWORK,
        to,
        type: 'interactive',
        interactive: {
          type: 'flow',
          header: { type: 'text', text: 'h' },
          body: { text: 'b' },
          footer: { text: 'f' },
          action: {
            name: 'flow',
            parameters: {
              flow_message_version: '3',
              flow_token: 't',
              flow_id: '1',
              flow_cta: 'Go',
              flow_action: 'navigate',
              flow_action_payload: { screen: 'S', data: { a: 1 } },
            },
          },
        },
      },
      {
        messaging_product: NETWORK,
        to,
        type: 'contacts',
        contacts: [
          {
            name: { formatted_name: 'A B', first_name: 'A' },
            birthday: '1990-01-31',
            phones: [{ phone: '+15550102030', type: 'WORK', wa_id: '15550102030' }],
            emails: [{ email: 'a@b.example', type: 'WORK' }],
            addresses: [{ city: 'X', country_code: 'US', type: 'HOME' }],
            org: { company: 'C' },
            urls: [{ url: 'https://b.example', type: 'WORK' }],
          },
        ],
      },
      { messaging_product: NETWORK, to, type: 'location', location: { latitude: 52.5, longitude: 13.4, name: 'n', address: 'a' } },
      { messaging_product: NETWORK, to, type: 'image', image: { link: 'https://cdn.example/a.png' } },
      { messaging_product: NETWORK, to, type: 'document', document: { link: 'https://cdn.example/a.pdf', caption: 'c', filename: 'a.pdf' } },
      { messaging_product: NETWORK, to, type: 'reaction', reaction: { message_id: 'wamid.abc', emoji: '\ud83d\udc4d' } },
    ];
    for (const body of bodies) {
      const res = await send(body);
      expect({ type: (body as { type: string }).type, status: res.status, body: res.body }).toMatchObject({ status: 200 });
    }
    expect(await count()).toBe(bodies.length);
  });

  it('marks a message read: {success: true}, nothing stored', async () => {
    await send({ messaging_product: NETWORK, status: 'read', message_id: 'wamid.abc' }).expect(200, { success: true });
    await send({ messaging_product: NETWORK, status: 'read', message_id: 'wamid.abc', to: '1555' }).expect(400);
    expect(await count()).toBe(0);
  });

  it('Idempotency-Key: a retry gets the first answer and sends nothing; another body with the key is refused', async () => {
    const headers = { ...phone.headers, 'Idempotency-Key': 'order-42' };
    const first = await send(text('15550102030'), headers).expect(200);
    const again = await send(text('15550102030'), headers).expect(200);
    expect(again.body).toEqual(first.body);
    expect(await count()).toBe(1);
    const other = await send(text('15550102030', 'changed'), headers).expect(400);
    expect(other.body.error.error_data.details).toContain('Idempotency-Key');
    const otherPhone = await gw.newPhone();
    await send(text('15550102030'), { ...otherPhone.headers, 'Idempotency-Key': 'order-42' }).expect(200);
  });

  it('Idempotency-Key: a malformed key is 400 (#100) naming the header, and nothing is sent', async () => {
    const res = await send(text('15550102030'), { ...phone.headers, 'Idempotency-Key': 'a b' }).expect(400);
    expect(res.body.error).toMatchObject({
      message: '(#100) Invalid parameter',
      code: 100,
      error_data: { details: 'Idempotency-Key: The Idempotency-Key header must be 1 to 255 visible ASCII characters.' },
    });
    expect(await count()).toBe(0);
  });

  it('Idempotency-Key: an expired key is forgotten, and the same request sends again', async () => {
    const headers = { ...phone.headers, 'Idempotency-Key': 'expires' };
    const first = await send(text('15550102030'), headers).expect(200);
    await gw.get(Sql).rows(`UPDATE gateway.idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'expires'`);
    await gw.get(Pruner).pruneAll();
    expect(await gw.get(Sql).rows(`SELECT 1 FROM gateway.idempotency_keys WHERE key = 'expires'`)).toEqual([]);
    const again = await send(text('15550102030'), headers).expect(200);
    expect(again.body.messages[0].id).not.toBe(first.body.messages[0].id);
    expect(await count()).toBe(2);
  });

  it('GET api/Messages/{id} is 404 for another account', async () => {
    const { body } = await send(text('15550102030')).expect(200);
    const other = await gw.newPhone();
    const res = await request(gw.http).get(`/api/Messages/${body.messages[0].id}`).set(other.headers).expect(404);
    expect(res.body.error.error_subcode).toBe(33);
  });
});

function interactiveButtons(n: number): Record<string, unknown> {
  const buttons = Array.from({ length: n }, (_, i) => ({ type: 'reply', reply: { id: `b${i}`, title: `Button ${i}` } }));
  return {
    messaging_product: NETWORK,
    to: '15550102030',
    type: 'interactive',
    interactive: { type: 'button', body: { text: 'Pick' }, footer: null, action: { buttons } },
  };
}

function template(name: string): Record<string, unknown> {
  return { messaging_product: NETWORK, to: '15550102030', type: 'template', template: { name, language: { code: 'en_US' } } };
}
