import 'reflect-metadata';
import { describePathParameterWalk } from '@app/testkit';
import { NETWORK, request, startGateway, text, type Gateway, type Phone } from './support/gateway-test';

/** The spec's resources answer in the network's error body; health, docs and unknown paths in the shared `{message}`. */
const SPEC_PATH = /^\/api\/(Messages|Medias|Templates|Webhooks|Profiles|Usage|Conversations|OptOuts|Sandbox)(\/|\?|$)/;
const NUL_DETAILS = 'The path parameter id may not hold a NUL character (\\u0000) or an unpaired surrogate: they cannot be stored.';

describe('gateway: path parameters', () => {
  let gw: Gateway;
  let phone: Phone;

  beforeAll(async () => {
    gw = await startGateway({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_AUTH_PER_MINUTE: '1000000', GATEWAY_SERVICE_WINDOW: 'off' });
    phone = await gw.newPhone();
  });
  afterAll(() => gw.close());

  describePathParameterWalk(() => ({
    app: gw.app,
    http: gw.http,
    headers: phone.headers,
    valid: { id: '1', wa_id: '15550123456', deliveryId: '00000000-0000-4000-8000-000000000000' },
    assertErrorBody: (res, url) => {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      if (!SPEC_PATH.test(url)) return expect(res.body).toEqual({ message: expect.stringMatching(/./) });
      expect(res.body).toEqual({
        error: expect.objectContaining({
          message: expect.any(String),
          type: expect.any(String),
          code: expect.any(Number),
          error_data: { messaging_product: NETWORK, details: expect.any(String) },
          fbtrace_id: expect.any(String),
        }),
      });
    },
    expected: [
      'GET /api/Templates/:id :id',
      'GET /api/Messages/:id :id',
      'PUT /api/Webhooks/:id :id',
      'DELETE /api/Webhooks/:id :id',
      'POST /api/Messages +segment',
      'POST /network/notifications +segment',
    ],
  }));

  /** The network's invalid-parameter body for a NUL in the id, as a client sees it. */
  const invalidId = (res: request.Response) => ({
    error: {
      message: '(#100) Invalid parameter',
      type: 'OAuthException',
      code: 100,
      error_data: { messaging_product: NETWORK, details: NUL_DETAILS },
      fbtrace_id: res.headers['x-request-id'],
    },
  });

  it.each(['/api/Templates/%00', '/api/Templates/a%00b', '/api/Messages/%00', '/api/Messages/a%00b', '/api/Webhooks/%00'])(
    "%s: 400 in the network's invalid-parameter body",
    async (path) => {
      const res = await request(gw.http)[path.startsWith('/api/Webhooks') ? 'delete' : 'get'](path).set(phone.headers);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidId(res));
    },
  );

  it("a template id that is not numeric, or a message id nobody sent, is 404 in the network's not-found body", async () => {
    for (const path of ['/api/Templates/abc', '/api/Templates/-1', '/api/Templates/1e3', '/api/Templates/12345', '/api/Messages/wamid.nothing']) {
      const res = await request(gw.http).get(path).set(phone.headers).expect(404);
      expect(res.body.error).toMatchObject({ type: 'GraphMethodException', code: 100, error_subcode: 33 });
    }
  });

  it('a message and a template of the account are still found by their ids', async () => {
    const sent = await request(gw.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
    await request(gw.http)
      .get(`/api/Messages/${encodeURIComponent(sent.body.messages[0].id)}`)
      .set(phone.headers)
      .expect(200);
    const template = await request(gw.http)
      .post('/api/Templates')
      .set(phone.headers)
      .send({ name: 'path_params', language: 'en_US', category: 'MARKETING', components: [{ type: 'BODY', text: 'Hi' }] })
      .expect(201);
    await request(gw.http).get(`/api/Templates/${template.body.id}`).set(phone.headers).expect(200);
  });

  it("answers malformed percent-encoding and bytes that are not UTF-8 with 400 in the network's body", async () => {
    for (const segment of ['%E0%A4%A', '%FF', '%ED%A0%80']) {
      const res = await request(gw.http).get(`/api/Messages/${segment}`).set(phone.headers).expect(400);
      expect(res.body.error).toMatchObject({ code: 100, error_data: { details: `Failed to decode param '${segment}'` } });
    }
  });
});
