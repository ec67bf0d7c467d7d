import { consoleApiTypesProblem, openApiProblems } from '@app/testkit';
import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SCOPE = '/api/v1/client/{client}/{environment}/context/{context}/type/{type}';

describe('docstore: OpenAPI document and request ids', () => {
  let ds: Docstore;
  let c: Client;

  beforeAll(async () => {
    ds = await startDocstore({ BODY_LIMIT_BYTES: '2048' });
    c = await ds.newClient();
  });
  afterAll(() => ds.close());

  it("the console's API types are the ones this OpenAPI document generates (npm run api:types)", async () => {
    const document = (await request(ds.http).get('/docs-json').expect(200)).body as object;
    expect(await consoleApiTypesProblem(document, 'docstore')).toBeNull();
  });

  it('/docs-json describes the document, bulk, history, schema and token endpoints', async () => {
    const res = await request(ds.http).get('/docs-json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const doc = res.body;
    expect(doc.openapi).toMatch(/^3\./);
    const methods = (path: string) => Object.keys(doc.paths[path] ?? {}).sort();
    expect(methods(SCOPE)).toEqual(['get']);
    expect(methods(`${SCOPE}/{key}`)).toEqual(['delete', 'get', 'post', 'put']);
    expect(methods(`${SCOPE}/bulk`)).toEqual(['post']);
    expect(methods(`${SCOPE}/{key}/history`)).toEqual(['get']);
    expect(methods(`${SCOPE}/{key}/history/{history_id}/restore`)).toEqual(['post']);
    expect(methods(`${SCOPE}/schema`)).toEqual(['delete', 'get', 'post']);
    expect(methods('/api/v1/client/{client}/tokens')).toEqual(['get', 'post']);
    expect(methods('/api/v1/client/{client}/tokens/{tokenId}')).toEqual(['delete', 'put']);
    expect(methods('/api/v1/client/{client}/collections')).toEqual(['get']);
    expect(methods('/api/v1/client/{client}/stats')).toEqual(['get']);
    expect(doc.paths['/api/v1/client/{client}/stats'].get.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`)).toEqual([
      'path:client',
      'query:window',
    ]);
    expect(doc.paths['/health']).toBeUndefined();

    // Every operation is tagged and needs the bearer token.
    for (const [path, operations] of Object.entries<Record<string, { tags?: string[]; security?: unknown[] }>>(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        expect({ path, method, tags: op.tags?.length ?? 0 }).toEqual({ path, method, tags: 1 });
        expect(op.security).toEqual([{ bearer: [] }]);
      }
    }
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Request bodies are described.
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['DocumentBodyDto', 'BulkBodyDto', 'PutSchemaDto', 'CreateTokenDto', 'UpdateTokenDto']),
    );
    expect(doc.paths[`${SCOPE}/{key}`].post.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DocumentBodyDto' });
  });

  it('/docs-json is a valid OpenAPI document that Try it out can send: parameters once, bodies, paging and error answers', async () => {
    const doc = (await request(ds.http).get('/docs-json').expect(200)).body;
    const problems = await openApiProblems(doc, {
      lists: [
        `GET ${SCOPE}`,
        `GET ${SCOPE}/{key}/history`,
        'GET /api/v1/client/{client}/tokens',
        'GET /api/v1/client/{client}/collections',
        'GET /api/v1/client/{client}/webhooks',
        'GET /api/v1/client/{client}/webhooks/{webhookId}/deliveries',
        'GET /api/v1/client/{client}/webhooks/{webhookId}/deliveries/{deliveryId}/attempts',
        'GET /api/v1/client/{client}/audit',
      ],
      bodiless: [
        `POST ${SCOPE}/{key}/history/{history_id}/restore`,
        'POST /api/v1/client/{client}/webhooks/{webhookId}/rotate-secret',
        'POST /api/v1/client/{client}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
      ],
    });
    expect(problems).toEqual([]);
    // Errors are answered in the shared body: message, and the fields' errors on a 422.
    expect(doc.components.schemas.ErrorBody).toMatchObject({ required: ['message'], properties: { message: { type: 'string' }, errors: expect.any(Object) } });
    expect(doc.paths[`${SCOPE}/{key}`].put.responses['412'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorBody' });
  });

  it("the write examples work as sent: a schema, then a document that meets it, at the path parameters' examples", async () => {
    const doc = (await request(ds.http).get('/docs-json').expect(200)).body;
    const op = (path: string, method: string) => doc.paths[path][method];
    const example = (path: string, method: string) =>
      Object.values<{ value: object }>(op(path, method).requestBody.content['application/json'].examples)[0].value;
    const at = Object.fromEntries(
      op(`${SCOPE}/{key}`, 'post')
        .parameters.filter((p: { in: string }) => p.in === 'path')
        .map((p: { name: string; schema: { example?: string } }) => [p.name, p.schema.example]),
    );
    const scope = `/api/v1/client/${c.id}/${at.environment}/context/${at.context}/type/${at.type}`;
    await request(ds.http)
      .post(`${scope}/schema`)
      .set(c.auth)
      .send(example(`${SCOPE}/schema`, 'post'))
      .expect(201);
    await request(ds.http)
      .post(`${scope}/${at.key}`)
      .set(c.auth)
      .send(example(`${SCOPE}/{key}`, 'post'))
      .expect(201);
    await request(ds.http)
      .put(`${scope}/${at.key}`)
      .set(c.auth)
      .send(example(`${SCOPE}/{key}`, 'put'))
      .expect(200);
    await request(ds.http)
      .post(`${scope}/bulk`)
      .set(c.auth)
      .send(example(`${SCOPE}/bulk`, 'post'))
      .expect(200);
    const token = await request(ds.http).post(`/api/v1/client/${c.id}/tokens`).set(c.auth).send(example('/api/v1/client/{client}/tokens', 'post')).expect(201);
    await request(ds.http)
      .put(`/api/v1/client/${c.id}/tokens/${token.body.token_details.id}`)
      .set(c.auth)
      .send(example('/api/v1/client/{client}/tokens/{tokenId}', 'put'))
      .expect(200);
  });

  it('/docs serves the Swagger UI as HTML without authentication', async () => {
    const res = await request(ds.http).get('/docs').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/swagger/i);
  });

  it('every response carries an X-Request-Id, whatever its status and origin', async () => {
    const responses: Array<[string, request.Response]> = [
      ['GET /docs', await request(ds.http).get('/docs')],
      ['GET /docs-json', await request(ds.http).get('/docs-json')],
      ['GET /health', await request(ds.http).get('/health')],
      ['GET unknown route (404)', await request(ds.http).get('/nope')],
      ['no credentials (401)', await request(ds.http).get(c.doc())],
      ['list (200)', await request(ds.http).get(c.doc()).set(c.auth)],
      [
        'create (201)',
        await request(ds.http)
          .post(`${c.doc()}/rid`)
          .set(c.auth)
          .send(docBody('rid', { a: 1 })),
      ],
      ['invalid body (422)', await request(ds.http).post(`${c.doc()}/rid2`).set(c.auth).send({})],
      ['malformed JSON (400)', await request(ds.http).post(`${c.doc()}/rid3`).set(c.auth).set('Content-Type', 'application/json').send('{"data":')],
      [
        'body too large (413)',
        await request(ds.http)
          .post(`${c.doc()}/rid4`)
          .set(c.auth)
          .send(docBody('rid4', { big: 'x'.repeat(4096) })),
      ],
    ];
    const ids = responses.map(([name, res]) => [name, res.status, res.headers['x-request-id']]);
    expect(ids).toEqual(responses.map(([name, res]) => [name, res.status, expect.stringMatching(UUID)]));
    expect(new Set(ids.map(([, , id]) => id)).size).toBe(ids.length);
  });

  it('echoes a sane incoming X-Request-Id and replaces an unsafe one', async () => {
    const echoed = await request(ds.http).get(c.doc()).set(c.auth).set('X-Request-Id', 'edge-7f3a.01_b').expect(200);
    expect(echoed.headers['x-request-id']).toBe('edge-7f3a.01_b');
    const replaced = await request(ds.http).get(c.doc()).set(c.auth).set('X-Request-Id', 'inject\ttab {}').expect(200);
    expect(replaced.headers['x-request-id']).toMatch(UUID);
  });
});
