import 'reflect-metadata';
import { eventually, makeCertificates, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import fc from 'fast-check';
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

/** Two replicas on one database: a keyword taken by one holds on the other at its next send. */
describe('opt-outs across replicas (sandbox)', () => {
  const certs = makeCertificates();
  let a: Gateway;
  let b: Gateway;
  let phone: Phone;
  let receiver: WebhookReceiver;
  const env = { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_RELAY_INTERVAL_MS: '50', WEBHOOK_CACHE_SECONDS: '0' };

  beforeAll(async () => {
    receiver = await startWebhookReceiver({ tls: certs.signed });
    a = await startGateway(env, { trustedCertificates: [certs.ca] });
    b = await startGateway(env, { trustedCertificates: [certs.ca] });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await receiver.close();
  });
  beforeEach(async () => {
    phone = await a.newPhone();
  });

  const send = (gw: Gateway, body: unknown, p: Phone = phone) =>
    request(gw.http)
      .post('/api/Messages')
      .set(p.headers)
      .send(body as object);
  const inbound = (gw: Gateway, from: string, body: string, p: Phone = phone) =>
    request(gw.http).post('/api/Sandbox/Inbound').set(p.headers).send({ from, type: 'text', text: { body } }).expect(200);
  const optOut = (gw: Gateway, method: 'get' | 'put' | 'delete', waId: string, p: Phone = phone) =>
    request(gw.http)[method](`/api/OptOuts/${waId}`).set(p.headers);

  it('after an inbound "Parar", a marketing template and free-form are refused within 1 s on another replica; utility and authentication still go; after "VOLTAR" marketing goes', async () => {
    const customer = '15550132001';
    await approvedTemplate(a, phone, templateOf('weekly_offers', 'MARKETING'));
    await approvedTemplate(a, phone, templateOf('order_status', 'UTILITY'));
    await approvedTemplate(a, phone, {
      name: 'login_code',
      category: 'AUTHENTICATION',
      language: 'en_US',
      components: [
        { type: 'body', add_security_recommendation: true },
        { type: 'footer', code_expiration_minutes: 10 },
        {
          type: 'buttons',
          buttons: [
            { type: 'otp', otp_type: 'one_tap', text: 'Copy code', autofill_text: 'Autofill', package_name: 'com.example.app', signature_hash: 'K8a/AINcGX7' },
          ],
        },
      ],
    });
    await openConversation(a, phone, customer);
    await send(b, templateMessage(customer, 'weekly_offers')).expect(200);

    await inbound(a, customer, 'Parar');
    const started = Date.now();
    const refused = await eventually(
      async () => {
        const res = await send(b, templateMessage(customer, 'weekly_offers'));
        return res.status === 400 ? res : undefined;
      },
      { what: 'the opt-out to hold on replica b', timeoutMs: 1000 },
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(refused.body.error).toEqual({
      message: '(#131050) Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.',
      type: 'OAuthException',
      code: 131050,
      error_data: {
        messaging_product: NETWORK,
        details: expect.stringMatching(/^to: 15550132001 opted out \(sent PARAR at .+\); a MARKETING template is not sent to an opted-out contact\./),
      },
      fbtrace_id: refused.headers['x-request-id'],
    });
    // The window is open (the customer just wrote), yet free-form is refused: the opt-out covers it.
    const freeForm = await send(b, text(customer, 'Sorry to see you go')).expect(400);
    expect(freeForm.body.error.error_data.details).toContain('a free-form text message is not sent');
    await send(b, templateMessage(customer, 'order_status')).expect(200);
    await send(b, templateMessage(customer, 'login_code')).expect(200);
    expect((await optOut(b, 'get', customer).expect(200)).body).toEqual({
      wa_id: customer,
      source: 'keyword',
      keyword: 'PARAR',
      opted_out_at: expect.any(String),
    });
    const listed = (await request(b.http).get('/api/Conversations').set(phone.headers).expect(200)).body.data[0];
    expect(listed).toMatchObject({ wa_id: customer, opted_out: true });

    await inbound(b, customer, 'voltar');
    await send(a, templateMessage(customer, 'weekly_offers')).expect(200);
    await optOut(a, 'get', customer).expect(404);
  });

  it('takes keywords case and accent insensitively, only as the whole text; an account sets its own', async () => {
    await inbound(a, '15550132002', 'please stop calling me at night');
    await optOut(a, 'get', '15550132002').expect(404);
    await inbound(a, '15550132002', '  Cancelár! ');
    expect((await optOut(a, 'get', '15550132002').expect(200)).body.keyword).toBe('CANCELAR');

    const keywords = await request(a.http).get('/api/OptOuts/Keywords').set(phone.headers).expect(200);
    expect(keywords.body).toEqual({ opt_out: ['STOP', 'PARAR', 'SAIR', 'CANCELAR'], opt_in: ['START', 'VOLTAR'] });
    const set = await request(a.http)
      .put('/api/OptOuts/Keywords')
      .set(phone.headers)
      .send({ opt_out: ['Não quero', 'baja'], opt_in: ['alta'] })
      .expect(200);
    expect(set.body).toEqual({ opt_out: ['NAO QUERO', 'BAJA'], opt_in: ['ALTA'] });
    await inbound(a, '15550132003', 'STOP');
    await optOut(a, 'get', '15550132003').expect(404);
    await inbound(a, '15550132003', 'nao quero');
    await optOut(a, 'get', '15550132003').expect(200);
    await inbound(a, '15550132003', 'Alta');
    await optOut(a, 'get', '15550132003').expect(404);

    const both = await request(a.http)
      .put('/api/OptOuts/Keywords')
      .set(phone.headers)
      .send({ opt_out: ['STOP'], opt_in: ['stop'] })
      .expect(400);
    expect(both.body.error.error_data.details).toBe('opt_in: must not repeat an opt-out keyword (stop)');
    await request(a.http)
      .put('/api/OptOuts/Keywords')
      .set(phone.headers)
      .send({ opt_out: [], opt_in: ['x'] })
      .expect(400);
  });

  it('PUT and DELETE api/OptOuts/{wa_id} by hand, with a user_preferences webhook event each way', async () => {
    await request(a.http)
      .post('/api/Webhooks')
      .set(phone.headers)
      .send({ phone: phone.phone, types: ['user_preferences'], endpoint: receiver.url, headers: {} })
      .expect(201);
    const customer = '15550132004';
    await openConversation(a, phone, customer);
    const put = await optOut(a, 'put', customer).expect(200);
    expect(put.body).toEqual({ wa_id: customer, source: 'api', keyword: null, opted_out_at: expect.any(String) });
    expect((await optOut(b, 'put', customer).expect(200)).body).toEqual(put.body);
    await send(b, text(customer)).expect(400, /131050/);
    await optOut(b, 'delete', customer).expect(204);
    await optOut(b, 'delete', customer).expect(404);
    await send(a, text(customer)).expect(200);

    const ofPhone = (c: { json?: { entry?: { changes?: { value?: { metadata?: { phone_number_id?: string } } }[] }[] } }) =>
      c.json?.entry?.[0]?.changes?.[0]?.value?.metadata?.phone_number_id === phone.phoneId;
    const calls = (await receiver.waitFor(2, ofPhone)).filter(ofPhone);
    const values = calls.map((c) => c.json.entry[0].changes[0]);
    expect(values.map((v) => [v.field, v.value.user_preferences[0].value])).toEqual([
      ['user_preferences', 'stop'],
      ['user_preferences', 'resume'],
    ]);
    expect(values[0].value).toEqual({
      messaging_product: NETWORK,
      metadata: { display_phone_number: phone.phone, phone_number_id: phone.phoneId },
      contacts: [{ profile: { name: '' }, wa_id: customer }],
      user_preferences: [
        {
          wa_id: customer,
          detail: 'User requested to stop marketing messages (set through the API)',
          category: 'marketing_messages',
          value: 'stop',
          timestamp: expect.any(Number),
        },
      ],
    });
  });

  it("keeps each account's opt-outs its own: another account sees 404 and may still send", async () => {
    const customer = '15550132005';
    await inbound(a, customer, 'STOP');
    const stranger = await a.newPhone();
    await optOut(a, 'get', customer, stranger).expect(404);
    await optOut(a, 'delete', customer, stranger).expect(404);
    await openConversation(a, stranger, customer);
    await send(a, text(customer), stranger).expect(200);
    await optOut(a, 'get', customer).expect(200);
    // Another phone of the same account shares the opt-out.
    const sibling = await a.addPhone(phone);
    await optOut(a, 'get', customer, sibling).expect(200);
  });

  it('never answers 5xx to generated wa_ids and keyword bodies (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.stringMatching(/^\d{1,40}$/), fc.string({ minLength: 1, maxLength: 40 })),
        fc.constantFrom('get', 'put', 'delete'),
        async (waId, method) => {
          const res = await optOut(a, method as 'get', encodeURIComponent(waId));
          expect([200, 204, 400, 404]).toContain(res.status);
        },
      ),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(fc.record({ opt_out: fc.jsonValue(), opt_in: fc.jsonValue() }, { requiredKeys: [] }), async (body) => {
        const res = await request(a.http).put('/api/OptOuts/Keywords').set(phone.headers).send(body);
        expect([200, 400]).toContain(res.status);
      }),
      { numRuns: 60 },
    );
  });
});
