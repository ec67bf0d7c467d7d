import 'reflect-metadata';
import { NETWORK, request, useGateway, type Gateway, type Phone } from './support/gateway-test';

describe('api/Profiles (sandbox)', () => {
  let gw: Gateway;
  let phone: Phone;

  useGateway({ app: (g) => (gw = g), phone: (p) => (phone = p) });

  const update = (body: unknown, query = '', p: Phone = phone) =>
    request(gw.http)
      .post(`/api/Profiles${query}`)
      .set(p.headers)
      .send(body as object);
  const read = (p: Phone = phone) => request(gw.http).get('/api/Profiles').set(p.headers).expect(200);

  it('updates (201 {success}) and reads back {data: [profile]}, merging later updates', async () => {
    await read().expect({ data: [{ messaging_product: NETWORK }] });
    const profile = {
      messaging_product: NETWORK,
      address: 'Main St 1',
      description: 'We sell',
      vertical: 'RETAIL',
      about: 'Open \ud83d\ude00 daily',
      email: 'shop@example.com',
      websites: ['https://shop.example', 'http://shop.example/b'],
    };
    await update(profile).expect(201, { success: true });
    await update({ messaging_product: NETWORK, vertical: '' }).expect(201);
    const { body } = await read();
    expect(body).toEqual({ data: [{ ...profile, vertical: '' }] });
  });

  it('updates another phone of the same account with phone_id, never a phone of another account', async () => {
    const sibling = await gw.addPhone(phone);
    await update({ messaging_product: NETWORK, about: 'sibling' }, `?phone_id=${sibling.phoneId}`).expect(201);
    expect((await read(sibling)).body.data[0].about).toBe('sibling');
    expect((await read()).body.data[0].about).toBeUndefined();
    const stranger = await gw.newPhone();
    const res = await update({ messaging_product: NETWORK, about: 'x' }, `?phone_id=${stranger.phoneId}`).expect(403);
    expect(res.body.error.code).toBe(200);
    expect((await read(stranger)).body.data[0].about).toBeUndefined();
  });

  it.each([
    ['an array-style phone_id', (id: string) => `?phone_id[]=${id}`, 'phone_id[]: query parameters take one value'],
    ['an object-style phone_id', (id: string) => `?phone_id[x]=${id}`, 'phone_id[x]: query parameters take one value'],
    ['a repeated phone_id', (id: string) => `?phone_id=${id}&phone_id=${id}`, 'phone_id: must be given once'],
  ])('refuses %s with 400, changing no profile', async (_, query, details) => {
    const sibling = await gw.addPhone(phone);
    const res = await update({ messaging_product: NETWORK, about: 'sibling' }, query(sibling.phoneId)).expect(400);
    expect(res.body.error.error_data.details).toContain(details);
    expect((await read(sibling)).body.data[0].about).toBeUndefined();
    expect((await read()).body.data[0].about).toBeUndefined();
    await request(gw.http).get(`/api/Webhooks?x=1&x=2`).set(phone.headers).expect(400);
  });

  it.each([
    ['no messaging_product', { about: 'x' }, `messaging_product: is required: one of ${NETWORK}`],
    ['an address of 257', { messaging_product: NETWORK, address: 'a'.repeat(257) }, 'address: must be at most 256'],
    ['a description of 257', { messaging_product: NETWORK, description: 'a'.repeat(257) }, 'description: must be at most 256'],
    ['an unknown vertical', { messaging_product: NETWORK, vertical: 'SPACE' }, 'vertical: must be one of'],
    ['an empty about', { messaging_product: NETWORK, about: '' }, 'about: must not be empty'],
    ['an about of 140', { messaging_product: NETWORK, about: 'a'.repeat(140) }, 'about: must be at most 139'],
    ['a bad email', { messaging_product: NETWORK, email: 'not-an-email' }, 'email: must be a valid e-mail'],
    ['an email of 129', { messaging_product: NETWORK, email: `${'a'.repeat(120)}@b.example` }, 'email: must be at most 128'],
    [
      'three websites',
      { messaging_product: NETWORK, websites: ['https://a.example', 'https://b.example', 'https://c.example'] },
      'websites: must hold at most 2',
    ],
    ['a website without http', { messaging_product: NETWORK, websites: ['ftp://a.example'] }, 'websites.0: must start with http'],
    ['an unknown field', { messaging_product: NETWORK, color: 'red' }, 'color: is not a known parameter'],
  ])('refuses %s with 400, changing nothing', async (_, body, details) => {
    const res = await update(body).expect(400);
    expect(res.body.error.error_data.details).toContain(details);
    await read().expect({ data: [{ messaging_product: NETWORK }] });
  });
});
