import 'reflect-metadata';
import { request, startGateway, type Gateway, type Phone } from './support/gateway-test';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('api/Webhooks (registration)', () => {
  let gw: Gateway;
  let phone: Phone;

  beforeAll(async () => {
    gw = await startGateway({ WEBHOOK_ALLOWED_TARGETS: '127.0.0.1' });
  });
  afterAll(() => gw.close());
  beforeEach(async () => {
    phone = await gw.newPhone();
  });

  const create = (body: unknown, query = '', p: Phone = phone) =>
    request(gw.http)
      .post(`/api/Webhooks/${query}`)
      .set(p.headers)
      .send(body as object);
  const list = (p: Phone = phone) => request(gw.http).get('/api/Webhooks').set(p.headers).expect(200);
  const hook = (extra: Record<string, unknown> = {}) => ({
    phone: phone.phone,
    types: ['messages'],
    endpoint: 'https://127.0.0.1:9/hook',
    headers: { Authorization: 'Bearer receiver-token', 'X-Shop': '42' },
    ...extra,
  });

  it('creates (201), lists, updates (200) and deletes (204) with the spec bodies', async () => {
    const created = await create(hook()).expect(201);
    expect(created.body).toEqual({
      success: true,
      id: expect.stringMatching(UUID),
      phone: phone.phone,
      phone_id: phone.phoneId,
      types: ['messages'],
      endpoint: 'https://127.0.0.1:9/hook',
      create_date: expect.stringMatching(ISO),
      update_date: expect.stringMatching(ISO),
      headers: { Authorization: 'Bearer receiver-token', 'X-Shop': '42' },
    });
    const listed = await list();
    expect(listed.body).toEqual({
      success: true,
      webhooks: [{ ...created.body, success: undefined, meta_version: 'LASTEST' }].map(({ success: _s, ...w }) => w),
    });
    const updated = await request(gw.http)
      .put(`/api/Webhooks/${created.body.id}`)
      .set(phone.headers)
      .send({ phone: phone.phone, meta_version: 'LASTEST', headers: { 'X-Shop': '43' }, endpoint: 'https://127.0.0.1:9/other' })
      .expect(200);
    expect(updated.body).toEqual({
      success: true,
      id: created.body.id,
      phone: phone.phone,
      phone_id: phone.phoneId,
      meta_version: 'LASTEST',
      endpoint: 'https://127.0.0.1:9/other',
      create_date: created.body.create_date,
      update_date: expect.stringMatching(ISO),
      headers: { 'X-Shop': '43' },
    });
    await request(gw.http).delete(`/api/Webhooks/${created.body.id}`).set(phone.headers).expect(204, '');
    await request(gw.http).delete(`/api/Webhooks/${created.body.id}`).set(phone.headers).expect(404);
    expect((await list()).body.webhooks).toEqual([]);
  });

  it('keeps several webhooks per key, separated by types; headers default to none', async () => {
    await create(hook({ endpoint: 'https://127.0.0.1:9/a' })).expect(201);
    await create({ types: ['messages'], endpoint: 'https://127.0.0.1:9/b' }).expect(201, /"headers":\{\}/);
    expect((await list()).body.webhooks.map((w: { endpoint: string }) => w.endpoint).sort()).toEqual(['https://127.0.0.1:9/a', 'https://127.0.0.1:9/b']);
  });

  it('registers for another phone of the account with phone_id, never for a stranger', async () => {
    const sibling = await gw.addPhone(phone);
    const res = await create(hook({ phone: sibling.phone }), `?phone_id=${sibling.phoneId}`).expect(201);
    expect(res.body).toMatchObject({ phone: sibling.phone, phone_id: sibling.phoneId });
    const stranger = await gw.newPhone();
    await create(hook(), `?phone_id=${stranger.phoneId}`).expect(403);
    await request(gw.http).put(`/api/Webhooks/${res.body.id}`).set(stranger.headers).send({ endpoint: 'https://127.0.0.1:9/x' }).expect(404);
    await request(gw.http).delete(`/api/Webhooks/${res.body.id}`).set(stranger.headers).expect(404);
  });

  it.each([
    ['a type other than messages', { types: ['account_update'] }, 'types.0: must be one of messages, user_preferences'],
    ['no types', { types: undefined }, 'types: is required'],
    ['an http endpoint', { endpoint: 'http://127.0.0.1:9/hook' }, 'endpoint: must be an https URL'],
    ['a private endpoint', { endpoint: 'https://10.0.0.1/hook' }, 'endpoint:'],
    ['a phone that is not the key phone', { phone: '15550000000' }, 'phone: must be'],
    ['a reserved header', { headers: { 'Content-Type': 'text/plain' } }, 'headers.Content-Type: is set by the gateway'],
    ['a header value with a newline', { headers: { 'X-A': 'a\r\nb' } }, 'headers.X-A: must be a header value'],
    ['an unknown field', { secret: 'x' }, 'secret: is not a known parameter'],
  ])('refuses %s with 400, storing nothing', async (_, extra, details) => {
    const res = await create(hook(extra)).expect(400);
    expect(res.body.error.error_data.details).toContain(details);
    expect((await list()).body.webhooks).toEqual([]);
  });

  it('holds a phone to WEBHOOKS_MAX_PER_OWNER webhooks (20 by default), also when the creates come at once, in the network body', async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => create(hook({ endpoint: `https://127.0.0.1:9/cap/${i}` }))));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).toEqual(Array(5).fill(400));
    expect(refused[0].body).toEqual({
      error: {
        message: '(#100) Invalid parameter',
        type: 'OAuthException',
        code: 100,
        fbtrace_id: expect.any(String),
        error_data: {
          messaging_product: 'whatsapp',
          details: `phone: ${phone.phone} already has 20 webhooks, the most allowed: delete one to register another`,
        },
      },
    });
    expect((await list()).body.webhooks).toHaveLength(20);
    // Another phone of the account has a cap of its own.
    const sibling = await gw.addPhone(phone);
    await create(hook({ phone: sibling.phone }), `?phone_id=${sibling.phoneId}`).expect(201);
  });

  it('answers 404 for unknown ids and 401 without a key', async () => {
    await request(gw.http).put('/api/Webhooks/00000000-0000-4000-8000-000000000000').set(phone.headers).send({ endpoint: 'https://127.0.0.1:9/x' }).expect(404);
    await request(gw.http).delete('/api/Webhooks/nope').set(phone.headers).expect(404);
    await request(gw.http).get('/api/Webhooks').set({ version: '6.0' }).expect(401);
  });
});
