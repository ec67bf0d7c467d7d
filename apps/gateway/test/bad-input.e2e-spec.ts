import 'reflect-metadata';
import { Sql } from '@app/database';
import fc from 'fast-check';
import { startFakeGraphApi, type FakeGraphApi } from './support/fake-graph-api';
import { NETWORK, request, startGateway, text, type Gateway, type Phone } from './support/gateway-test';

/** Generated garbage at every endpoint: never a 5xx, and a refusal stores nothing and sends nothing to the network. */
describe('bad input (cloud provider, fake network)', () => {
  let gw: Gateway;
  let graph: FakeGraphApi;
  let phone: Phone;

  beforeAll(async () => {
    graph = await startFakeGraphApi();
    gw = await startGateway({ GATEWAY_PROVIDER: 'cloud', CLOUD_API_BASE_URL: graph.url, MESSAGES_PER_SECOND: '3', GATEWAY_SERVICE_WINDOW: 'off' });
    phone = await gw.newPhone({ accessToken: 'token', wabaId: '42' });
  });
  afterAll(async () => {
    await gw.close();
    await graph.close();
  });

  const totals = async () =>
    gw.get(Sql).one<Record<string, string>>(
      `SELECT (SELECT count(*) FROM gateway.messages) AS messages, (SELECT count(*) FROM gateway.templates) AS templates, (SELECT count(*) FROM gateway.media) AS media,
              (SELECT count(*) FROM gateway.profiles) AS profiles, (SELECT count(*) FROM gateway.webhooks) AS webhooks, (SELECT count(*) FROM gateway.idempotency_keys) AS keys`,
    );

  const garbage = fc.oneof(
    fc.jsonValue(),
    fc.dictionary(
      fc.constantFrom(
        'messaging_product',
        'to',
        'type',
        'text',
        'interactive',
        'template',
        'image',
        'status',
        'name',
        'category',
        'language',
        'components',
        'about',
        'websites',
        'endpoint',
        'types',
        'headers',
        'phone',
      ),
      fc.jsonValue(),
    ),
    fc.record(
      {
        messaging_product: fc.constant(NETWORK),
        to: fc.string(),
        type: fc.constantFrom('text', 'interactive', 'contacts', 'location', 'image', 'document', 'reaction', 'template'),
        interactive: fc.jsonValue(),
        template: fc.jsonValue(),
        contacts: fc.jsonValue(),
      },
      { requiredKeys: ['messaging_product'] },
    ),
  );

  it.each([
    ['POST', '/api/Messages'],
    ['POST', '/api/Templates'],
    ['POST', '/api/Profiles'],
    ['POST', '/api/Webhooks'],
    ['PUT', '/api/Webhooks/00000000-0000-4000-8000-000000000000'],
  ])('%s %s: no 5xx, a refusal stores and sends nothing', async (method, path) => {
    await fc.assert(
      fc.asyncProperty(garbage, fc.option(fc.string({ maxLength: 20 })), async (body, key) => {
        const before = await totals();
        graph.reset();
        let req = request(gw.http)[method === 'POST' ? 'post' : 'put'](path).set(phone.headers);
        if (key) req = req.set('Idempotency-Key', key);
        const res = await req.send(body === null ? 'null' : (body as object)).set('content-type', 'application/json');
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.body.error).toEqual(
            expect.objectContaining({ code: expect.any(Number), error_data: expect.objectContaining({ details: expect.any(String) }) }),
          );
          expect(await totals()).toEqual(before);
          expect(graph.calls).toEqual([]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('GET by garbage ids: 404 or 400, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 300 }), async (id) => {
        for (const path of ['/api/Messages/', '/api/Templates/']) {
          const res = await request(gw.http)
            .get(path + encodeURIComponent(id))
            .set(phone.headers);
          expect([400, 404]).toContain(res.status);
        }
      }),
      { numRuns: 40 },
    );
  });

  it('POST api/Medias with garbage parts: no 5xx, nothing stored or sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 2048 }),
        fc.constantFrom('image/png', 'application/octet-stream', 'audio/ogg', 'text/plain', 'video/mp4'),
        fc.constantFrom('File', 'file', 'other'),
        async (bytes, type, field) => {
          const before = await totals();
          graph.reset();
          const res = await request(gw.http)
            .post('/api/Medias')
            .set(phone.headers)
            .field('messaging_product', NETWORK)
            .attach(field, Buffer.from(bytes), { filename: 'x', contentType: type });
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) {
            expect(await totals()).toEqual(before);
            expect(graph.calls).toEqual([]);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses malformed JSON, a body over the limit and a wrong content type with 4xx in the network body', async () => {
    const malformed = await request(gw.http).post('/api/Messages').set(phone.headers).set('content-type', 'application/json').send('{"messaging_product":');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe(100);
    const huge = await request(gw.http)
      .post('/api/Messages')
      .set(phone.headers)
      .send(text('15550102030', 'x'.repeat(6 * 1024 * 1024)));
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe(100);
    const form = await request(gw.http).post('/api/Messages').set(phone.headers).type('form').send('messaging_product=whatsapp&to=1');
    expect(form.status).toBeGreaterThanOrEqual(400);
    expect(form.status).toBeLessThan(500);
  });

  it('caps messages per second per phone at MESSAGES_PER_SECOND with the network throughput error (429), sending nothing beyond', async () => {
    const other = await gw.newPhone({ accessToken: 'token', wabaId: '43' });
    graph.reset();
    const results = await Promise.all(Array.from({ length: 10 }, () => request(gw.http).post('/api/Messages').set(other.headers).send(text('15550102030'))));
    const limited = results.filter((r) => r.status === 429);
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    expect(limited.length).toBeGreaterThanOrEqual(4);
    expect(limited[0].body.error).toMatchObject({ code: 130429, type: 'OAuthException' });
    expect(limited[0].headers['retry-after']).toBe('1');
    expect(graph.calls).toHaveLength(10 - limited.length);
  });
});
