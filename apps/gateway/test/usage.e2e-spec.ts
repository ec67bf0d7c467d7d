import 'reflect-metadata';
import { createHmac } from 'node:crypto';
import { eventually } from '@app/testkit';
import fc from 'fast-check';
import { request, startGateway, text, useCloudGateway, type Gateway, type Phone } from './support/gateway-test';

const today = () => new Date().toISOString().slice(0, 10);
type UsageBody = {
  phone_id: string;
  from: string;
  to: string;
  currency: string;
  totals: { messages: number; billable: number; cost: number };
  data: {
    date: string;
    messages: number;
    billable: number;
    cost: number;
    categories: { category: string; messages: number; billable: number; unit_price: number | null; cost: number }[];
  }[];
};

describe('pricing and GET api/Usage (sandbox, price table from settings)', () => {
  let gw: Gateway;
  let phone: Phone;

  beforeAll(async () => {
    gw = await startGateway({
      PRICING_TABLE: 'marketing=0.05,utility=0.0125,authentication=0.02,service=0',
      PRICING_CURRENCY: 'EUR',
      GATEWAY_SERVICE_WINDOW: 'off',
    });
  });
  afterAll(() => gw.close());
  beforeEach(async () => {
    phone = await gw.newPhone();
  });

  const usage = (query: Record<string, string> = {}, p: Phone = phone) => request(gw.http).get('/api/Usage').query(query).set(p.headers);
  const message = (id: string, p: Phone = phone) => request(gw.http).get(`/api/Messages/${id}`).set(p.headers).expect(200);
  const send = async (body: unknown, p: Phone = phone) =>
    (
      await request(gw.http)
        .post('/api/Messages')
        .set(p.headers)
        .send(body as object)
        .expect(200)
    ).body.messages[0].id as string;
  const approvedTemplate = async (name: string, category: string, p: Phone = phone) => {
    const { body } = await request(gw.http)
      .post('/api/Templates')
      .set(p.headers)
      .send({ name, category, language: 'en_US', components: [{ type: 'BODY', text: 'Your order is ready.' }] })
      .expect(201);
    await eventually(async () => ((await request(gw.http).get(`/api/Templates/${body.id}`).set(p.headers)).body.status === 'APPROVED' ? true : undefined), {
      what: 'the review',
      timeoutMs: 10_000,
    });
  };
  const template = (to: string, name: string) => ({ messaging_product: 'whatsapp', to, type: 'template', template: { name, language: { code: 'en_US' } } });
  const read = (id: string, p: Phone = phone) =>
    eventually(async () => ((await message(id, p)).body.status === 'read' ? (await message(id, p)).body : undefined), {
      what: `${id} read`,
      timeoutMs: 10_000,
    });

  it('statuses carry the pricing and conversation of the price table, and GET api/Usage counts and prices them by day and category', async () => {
    await approvedTemplate('order_ready', 'UTILITY');
    await approvedTemplate('big_sale', 'MARKETING');
    const service = await send(text('15550102030'));
    const utility = [await send(template('15550102030', 'order_ready')), await send(template('15550102031', 'order_ready'))];
    const marketing = await send(template('15550102030', 'big_sale'));
    const undeliverable = await send(text('15550100000'));

    const view = await read(utility[0]);
    const [accepted, sent, delivered] = view.statuses;
    expect(accepted.pricing).toBeUndefined();
    expect(sent.pricing).toEqual({ billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' });
    expect(sent.conversation).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      expiration_timestamp: expect.stringMatching(/^\d+$/),
      origin: { type: 'utility' },
    });
    expect(delivered.conversation).toEqual({ id: sent.conversation.id, origin: { type: 'utility' } });
    const serviceView = await read(service);
    expect(serviceView.statuses[1].pricing).toEqual({ billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' });
    // One conversation per contact and category: the second contact's utility message opens another.
    expect((await read(utility[1])).statuses[1].conversation.id).not.toBe(sent.conversation.id);
    await read(marketing);
    await eventually(async () => ((await message(undeliverable)).body.status === 'failed' ? true : undefined), { timeoutMs: 10_000 });

    const { body } = (await usage().expect(200)) as { body: UsageBody };
    expect(body).toMatchObject({ phone_id: phone.phoneId, to: today(), currency: 'EUR' });
    expect(body.data).toHaveLength(30);
    const day = body.data[body.data.length - 1];
    expect(day).toEqual({
      date: today(),
      messages: 5,
      billable: 3,
      cost: 0.075,
      categories: [
        { category: 'utility', messages: 2, billable: 2, unit_price: 0.0125, cost: 0.025 },
        { category: 'marketing', messages: 1, billable: 1, unit_price: 0.05, cost: 0.05 },
        { category: 'service', messages: 1, billable: 0, unit_price: 0, cost: 0 },
      ],
    });
    expect(body.totals).toEqual({ messages: 5, billable: 3, cost: 0.075 });
    expect(body.data.slice(0, -1).every((d) => d.messages === 0 && d.categories.length === 0)).toBe(true);
  });

  it('covers the range asked for, both ends included, and another phone of the account by phone_id', async () => {
    const second = await gw.addPhone(phone);
    await read(await send(text('15550102030'), second), second);
    const { body } = (await usage({ from: '2026-01-30', to: '2026-02-02' }).expect(200)) as { body: UsageBody };
    expect(body.data.map((d) => d.date)).toEqual(['2026-01-30', '2026-01-31', '2026-02-01', '2026-02-02']);
    const own = (await usage({ from: today(), to: today() }).expect(200)).body as UsageBody;
    expect(own.totals.messages).toBe(0);
    const other = (await usage({ from: today(), to: today(), phone_id: second.phoneId }).expect(200)).body as UsageBody;
    expect(other).toMatchObject({ phone_id: second.phoneId, totals: { messages: 1, billable: 0 } });
  });

  it("isolation: another account's phone_id is 403, and its usage is not counted in this one's", async () => {
    const stranger = await gw.newPhone();
    await read(await send(text('15550102030'), stranger), stranger);
    const refused = await usage({ phone_id: stranger.phoneId }).expect(403);
    expect(refused.body.error).toMatchObject({ code: 200 });
    expect(((await usage().expect(200)).body as UsageBody).totals.messages).toBe(0);
    expect(((await usage({}, stranger).expect(200)).body as UsageBody).totals.messages).toBe(1);
    await request(gw.http).get('/api/Usage').set({ version: '6.0' }).expect(401);
  });

  it('refuses bad ranges in the network body, naming the parameter', async () => {
    const refusal = async (query: Record<string, string>) => (await usage(query).expect(400)).body.error.error_data.details as string;
    expect(await refusal({ from: '2026-02-30' })).toBe('from: must be a date as YYYY-MM-DD (UTC), from 2000-01-01');
    expect(await refusal({ to: 'yesterday' })).toMatch(/^to: must be a date/);
    expect(await refusal({ from: '2026-03-02', to: '2026-03-01' })).toBe('to: must not be before from');
    expect(await refusal({ from: '2024-01-01', to: '2026-01-01' })).toBe('to: must be at most 366 days from from');
    expect(await refusal({ phone_id: 'a b' })).toMatch(/^phone_id: /);
  });

  it('generated parameters never give a 5xx: a 200 with every day of a range of at most 366, or a 400 code 100', async () => {
    const day = fc.date({ min: new Date('1990-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    const value = fc.oneof(day, fc.string({ maxLength: 24 }), fc.constantFrom('', '2026-02-29', '2024-02-29', '0000-01-01', '9999-12-31', '2026-1-1'));
    await fc.assert(
      fc.asyncProperty(
        fc.record({ from: value, to: value, phone_id: fc.oneof(fc.string({ maxLength: 70 }), fc.constant(phone.phoneId)) }, { requiredKeys: [] }),
        async (query) => {
          const res = await usage(query);
          if (res.status === 200) {
            const body = res.body as UsageBody;
            expect(body.data.length).toBeGreaterThanOrEqual(1);
            expect(body.data.length).toBeLessThanOrEqual(366);
            expect(body.data[0].date).toBe(body.from);
            expect(body.data[body.data.length - 1].date).toBe(body.to);
          } else {
            expect([400, 403]).toContain(res.status);
            expect(res.body.error.code).toBe(res.status === 400 ? 100 : 200);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('pricing from the network (cloud, loopback fake network)', () => {
  const SECRET = 'usage-app-secret';
  const cloud = useCloudGateway({ CLOUD_API_APP_SECRET: SECRET, GATEWAY_SERVICE_WINDOW: 'off' });
  let phone: Phone;

  beforeEach(async () => {
    phone = await cloud.gw.newPhone({ accessToken: 'EAAG-usage', wabaId: String(Date.now()) });
  });

  const notify = (payload: unknown) => {
    const body = JSON.stringify(payload);
    return request(cloud.gw.http)
      .post('/network/notifications')
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`)
      .send(body)
      .expect(200);
  };
  const status = (id: string, value: string, extra: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '1',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
              statuses: [{ id, status: value, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: '15550102030', ...extra }],
            },
          },
        ],
      },
    ],
  });

  it("a status's pricing and conversation reach the message's history and GET api/Usage; a malformed pricing is left out, the status kept", async () => {
    const send = async () =>
      (await request(cloud.gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200)).body.messages[0].id as string;
    const [marketing, authentication, unpriced] = [await send(), await send(), await send()];
    expect(cloud.graph.calls).toHaveLength(3);
    const conversation = { id: 'CONVERSATION_ID_1', expiration_timestamp: '1764288000', origin: { type: 'marketing' } };
    await notify(status(marketing, 'sent', { conversation, pricing: { billable: true, pricing_model: 'PMP', category: 'marketing', type: 'regular' } }));
    // Newer Graph API versions leave `billable` out: a regular price is billed.
    await notify(status(authentication, 'delivered', { pricing: { pricing_model: 'PMP', category: 'authentication_international', type: 'regular' } }));
    await notify(status(unpriced, 'sent', { pricing: { billable: 'yes', category: 7 } }));

    const history = (await request(cloud.gw.http).get(`/api/Messages/${marketing}`).set(phone.headers).expect(200)).body;
    expect(history.statuses[1]).toMatchObject({
      status: 'sent',
      conversation,
      pricing: { billable: true, pricing_model: 'PMP', category: 'marketing', type: 'regular' },
    });
    const kept = (await request(cloud.gw.http).get(`/api/Messages/${unpriced}`).set(phone.headers).expect(200)).body;
    expect(kept.status).toBe('sent');
    expect(kept.statuses[1].pricing).toBeUndefined();

    const { body } = (await request(cloud.gw.http).get('/api/Usage').query({ from: today(), to: today() }).set(phone.headers).expect(200)) as {
      body: UsageBody;
    };
    expect(body.currency).toBe('USD');
    expect(body.data).toEqual([
      {
        date: today(),
        messages: 3,
        billable: 2,
        cost: 0.025,
        categories: [
          { category: 'authentication_international', messages: 1, billable: 1, unit_price: null, cost: 0 },
          { category: 'marketing', messages: 1, billable: 1, unit_price: 0.025, cost: 0.025 },
        ],
      },
    ]);
    // Only the three sends reached the network: notifications and usage reads call nothing.
    expect(cloud.graph.calls).toHaveLength(3);
  });
});
