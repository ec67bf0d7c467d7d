import 'reflect-metadata';
import { Sql } from '@app/database';
import { eventually } from '@app/testkit';
import { NETWORK, request, useGateway, type Gateway, type Phone } from './support/gateway-test';

export function marketing(name: string, extra: Record<string, unknown>[] = []): Record<string, unknown> {
  return {
    name,
    category: 'MARKETING',
    language: 'en_US',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Hi {{1}}', example: { header_text: ['Ann'] } },
      { type: 'BODY', text: 'Your code {{1}} is valid until {{2}}.', example: { body_text: [['ABC', 'Friday']] } },
      { type: 'FOOTER', text: 'Reply STOP to opt out' },
      ...extra,
    ],
  };
}

describe('api/Templates (sandbox)', () => {
  let gw: Gateway;
  let phone: Phone;

  // Not about the service window: free-form messages go to contacts who never wrote.
  useGateway({ app: (g) => (gw = g), phone: (p) => (phone = p) }, { GATEWAY_SERVICE_WINDOW: 'off' });

  const create = (body: unknown) =>
    request(gw.http)
      .post('/api/Templates')
      .set(phone.headers)
      .send(body as object);
  const get = (id: string) => request(gw.http).get(`/api/Templates/${id}`).set(phone.headers);
  const stored = async () =>
    Number(
      (await gw
        .get(Sql)
        .one<{ n: string }>(`SELECT count(*) AS n FROM gateway.templates t JOIN gateway.phones p ON p.account_id = t.account_id WHERE p.phone_id = $1`, [
          phone.phoneId,
        ]))!.n,
    );
  const until = (id: string, status: string) =>
    eventually(async () => {
      const res = await get(id).expect(200);
      return res.body.status === status ? res.body : undefined;
    });

  it('creates (201 PENDING), is approved after the review delay, and the same template again is 200 unchanged', async () => {
    const first = await create(marketing('summer_sale')).expect(201);
    expect(first.body).toEqual({ id: expect.stringMatching(/^\d{16}$/), status: 'PENDING', category: 'MARKETING' });
    const approved = await until(first.body.id, 'APPROVED');
    expect(approved).toMatchObject({
      id: first.body.id,
      name: 'summer_sale',
      language: 'en_US',
      category: 'MARKETING',
      components: marketing('summer_sale').components as unknown[],
    });
    const again = await create({ ...marketing('summer_sale'), category: 'UTILITY' }).expect(200);
    expect(again.body).toEqual({ id: first.body.id, status: 'APPROVED', category: 'MARKETING' });
    expect(await stored()).toBe(1);
  });

  it('takes the languages the network lists (fil, pt_BR, zh_TW) and refuses a well-formed code it does not list, storing nothing', async () => {
    for (const language of ['fil', 'pt_BR', 'zh_TW']) await create({ ...marketing('multi_lang'), language }).expect(201);
    for (const language of ['en_XX', 'pt', 'xx']) {
      const res = await create({ ...marketing('odd_lang'), language }).expect(400);
      expect(res.body.error).toMatchObject({ code: 100, error_data: { details: `language: ${language} is not a language the network takes templates in` } });
    }
    expect(await stored()).toBe(3);
  });

  it('rejects at review a body that starts with a variable', async () => {
    const body = marketing('starts_with_var');
    (body.components as Record<string, unknown>[])[1] = { type: 'BODY', text: '{{1}} is your code', example: { body_text: [['ABC']] } };
    const { body: created } = await create(body).expect(201);
    expect(await until(created.id, 'REJECTED')).toMatchObject({ status: 'REJECTED' });
  });

  it('sends an approved template (and refuses a pending one, or a wrong parameter count)', async () => {
    const { body: created } = await create(marketing('welcome_msg')).expect(201);
    const message = (params: number) => ({
      messaging_product: NETWORK,
      to: '15550102030',
      type: 'template',
      template: {
        name: 'welcome_msg',
        language: { code: 'en_US', policy: 'deterministic' },
        components: [
          { type: 'HEADER', parameters: [{ type: 'text', text: 'Ann' }] },
          { type: 'body', parameters: Array.from({ length: params }, (_, i) => ({ type: 'text', text: `p${i}` })) },
          { type: 'button', sub_type: 'QUICK_REPLY', index: '0', parameters: [{ type: 'payload', payload: 'yes' }] },
        ],
      },
    });
    const pending = await request(gw.http).post('/api/Messages').set(phone.headers).send(message(2)).expect(400);
    expect(pending.body.error).toMatchObject({ code: 132001, error_data: { details: expect.stringContaining('PENDING') } });
    await until(created.id, 'APPROVED');
    await request(gw.http).post('/api/Messages').set(phone.headers).send(message(2)).expect(200);
    const mismatch = await request(gw.http).post('/api/Messages').set(phone.headers).send(message(1)).expect(400);
    expect(mismatch.body.error.code).toBe(132000);
  });

  it('creates an authentication template (one-tap and zero-tap)', async () => {
    const auth = (otp: Record<string, unknown>) => ({
      name: `auth_${String(otp.otp_type)}`,
      category: 'authentication',
      language: 'en_US',
      message_send_ttl_seconds: 60,
      components: [
        { type: 'body', add_security_recommendation: true },
        { type: 'footer', code_expiration_minutes: 10 },
        {
          type: 'buttons',
          buttons: [{ type: 'otp', text: 'Copy code', autofill_text: 'Autofill', package_name: 'com.example.app', signature_hash: 'K8a/AINcGX7', ...otp }],
        },
      ],
    });
    await create(auth({ otp_type: 'one_tap' })).expect(201, /"category":"AUTHENTICATION"/);
    const refused = await create(auth({ otp_type: 'zero_tap', zero_tap_terms_accepted: false })).expect(400);
    expect(refused.body.error.error_data.details).toContain('zero_tap_terms_accepted: must be true');
    await create(auth({ otp_type: 'zero_tap', zero_tap_terms_accepted: true })).expect(201);
  });

  const buttons = (...list: Record<string, unknown>[]) => ({ type: 'BUTTONS', buttons: list });
  const quick = (text: string) => ({ type: 'QUICK_REPLY', text });
  const url = { type: 'URL', text: 'Open', url: 'https://shop.example/order/{{1}}', example: ['https://shop.example/order/42'] };
  const phoneButton = { type: 'PHONE_NUMBER', text: 'Call', phone_number: '15550102030' };

  it('accepts quick, quick, URL, phone', async () => {
    await create(marketing('grouped_ok', [buttons(quick('a'), quick('b'), url, phoneButton)])).expect(201);
  });

  it.each([
    ['quick, URL, quick', marketing('bad_mix', [buttons(quick('a'), url, quick('b'))]), 'invalid combination of buttons'],
    ['a name with capitals', { ...marketing('x'), name: 'Bad Name' }, 'name: must hold only lowercase'],
    ['a 513-character name', { ...marketing('x'), name: 'a'.repeat(513) }, 'name: must be at most 512'],
    ['no body', { ...marketing('x'), components: [{ type: 'FOOTER', text: 'f' }] }, 'components: must hold a BODY component'],
    ['a body of 1025', { ...marketing('x'), components: [{ type: 'BODY', text: 'a'.repeat(1025) }] }, 'components.0.text: must be at most 1024'],
    [
      'examples not matching the variables',
      { ...marketing('x'), components: [{ type: 'BODY', text: '{{1}} and {{2}} x', example: { body_text: [['one']] } }] },
      'must hold at least 2 items',
    ],
    [
      'a header of 61',
      {
        ...marketing('x'),
        components: [
          { type: 'HEADER', format: 'TEXT', text: 'h'.repeat(61) },
          { type: 'BODY', text: 'b' },
        ],
      },
      'components.0.text: must be at most 60',
    ],
    [
      'two header variables',
      {
        ...marketing('x'),
        components: [
          { type: 'HEADER', format: 'TEXT', text: '{{1}} {{2}}' },
          { type: 'BODY', text: 'b' },
        ],
      },
      'may hold at most 1 variable',
    ],
    [
      'a LOCATION header on AUTHENTICATION',
      { name: 'x', category: 'AUTHENTICATION', language: 'en_US', components: [{ type: 'HEADER', format: 'LOCATION' }, { type: 'BODY' }] },
      'AUTHENTICATION templates have no HEADER',
    ],
    [
      'a footer of 61',
      {
        ...marketing('x'),
        components: [
          { type: 'BODY', text: 'b' },
          { type: 'FOOTER', text: 'f'.repeat(61) },
        ],
      },
      'components.1.text: must be at most 60',
    ],
    ['11 buttons', marketing('x', [buttons(...Array.from({ length: 11 }, (_, i) => quick(`q${i}`)))]), 'must hold at most 10 items'],
    ['three URL buttons', marketing('x', [buttons(url, url, url)]), 'at most 2 URL buttons'],
    ['a URL variable not at the end', marketing('x', [buttons({ ...url, url: 'https://s.example/{{1}}/x' })]), 'at the end of the URL'],
    ['a copy code of 16', marketing('x', [buttons({ type: 'COPY_CODE', example: 'c'.repeat(16) })]), 'must be at most 15'],
    ['a button label of 26', marketing('x', [buttons(quick('q'.repeat(26)))]), 'must be at most 25'],
    ['a FLOW button without its screen', marketing('x', [buttons({ type: 'FLOW', text: 'Go', flow_id: '123' })]), 'navigate_screen: is required'],
    [
      'code_expiration_minutes 91',
      { name: 'x', category: 'AUTHENTICATION', language: 'en_US', components: [{ type: 'BODY' }, { type: 'FOOTER', code_expiration_minutes: 91 }] },
      'must be between 1 and 90',
    ],
    ['message_send_ttl_seconds on MARKETING', { ...marketing('x'), message_send_ttl_seconds: 60 }, 'only accepted for AUTHENTICATION'],
  ])('refuses %s with 400, storing nothing', async (_, body, details) => {
    const res = await create(body).expect(400);
    expect(res.body.error.error_data.details).toContain(details);
    expect(await stored()).toBe(0);
  });

  it('GET api/Templates/{id}: 404 for an unknown id or another account, 401 without a key', async () => {
    const { body } = await create(marketing('mine')).expect(201);
    await get('123').expect(404);
    const other = await gw.newPhone();
    await request(gw.http).get(`/api/Templates/${body.id}`).set(other.headers).expect(404);
    await request(gw.http).get(`/api/Templates/${body.id}`).set({ version: '6.0' }).expect(401);
  });
});
