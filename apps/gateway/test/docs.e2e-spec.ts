import { consoleApiTypesProblem, openApiProblems } from '@app/testkit';
import { request, startGateway, type Gateway, type Phone } from './support/gateway-test';

describe('gateway: OpenAPI document', () => {
  let gw: Gateway;
  let phone: Phone;
  let doc: {
    paths: Record<
      string,
      Record<
        string,
        { parameters?: Array<{ name: string; in: string }>; requestBody: { content: Record<string, { examples: Record<string, { value: unknown }> }> } }
      >
    >;
    components: { schemas: Record<string, unknown> };
  };

  beforeAll(async () => {
    gw = await startGateway({ GATEWAY_SERVICE_WINDOW: 'off' });
    phone = await gw.newPhone();
    doc = (await request(gw.http).get('/docs-json').expect(200)).body;
  });
  afterAll(() => gw.close());

  it("the console's API types are the ones this OpenAPI document generates (npm run api:types)", async () => {
    const document = (await request(gw.http).get('/docs-json').expect(200)).body as object;
    expect(await consoleApiTypesProblem(document, 'gateway')).toBeNull();
  });

  it('is a valid OpenAPI document that Try it out can send: parameters once, bodies and error answers', async () => {
    await expect(
      openApiProblems(doc, { lists: [], bodiless: ['POST /api/Webhooks/{id}/deliveries/{deliveryId}/redeliver', 'PUT /api/OptOuts/{wa_id}'] }),
    ).resolves.toEqual([]);
    // The Idempotency-Key header is declared once, optional (it was also declared required as idempotency-key).
    const headers = doc.paths['/api/Messages'].post.parameters!.filter((p) => p.in === 'header').map((p) => p.name);
    expect(headers).toEqual(['version', 'Idempotency-Key']);
    // Refusals are documented in the network's error body.
    expect(doc.components.schemas.ErrorBody).toMatchObject({ required: ['error'] });
  });

  it('each POST body example works as sent against the sandbox', async () => {
    const example = (path: string) => Object.values(doc.paths[path].post.requestBody.content['application/json'].examples);
    for (const { value } of example('/api/Messages')) {
      const sent = await request(gw.http)
        .post('/api/Messages')
        .set(phone.headers)
        .send(value as object);
      expect({ status: sent.status, body: sent.body }).toEqual({ status: 200, body: expect.objectContaining({ messages: [{ id: expect.any(String) }] }) });
    }
    for (const { value } of example('/api/Templates'))
      await request(gw.http)
        .post('/api/Templates')
        .set(phone.headers)
        .send(value as object)
        .expect(201);
    for (const { value } of example('/api/Profiles'))
      await request(gw.http)
        .post('/api/Profiles')
        .set(phone.headers)
        .send(value as object)
        .expect(201);
  });
});
