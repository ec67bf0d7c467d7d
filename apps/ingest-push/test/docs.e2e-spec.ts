import { consoleApiTypesProblem, openApiProblems } from '@app/testkit';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { issueSalesApiKey } from '../src/sales/sales-api-key.issuer';
import { SalesApiKeysRepository } from '../src/sales/sales-api-keys.repository';
import { request, startPush, type PushApp } from './support/push-test';

interface Doc {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: Array<{ name: string; in: string }>; requestBody: { content: Record<string, { examples: Record<string, { value: unknown }> }> } }
    >
  >;
  components: { schemas: Record<string, { properties: Record<string, { example?: unknown }> }> };
}

describe('ingest-push: OpenAPI document', () => {
  let app: PushApp;
  let doc: Doc;

  beforeAll(async () => {
    app = await startPush();
    doc = (await request(app.http).get('/docs-json').expect(200)).body;
  });
  afterAll(() => app.close());

  it("the console's API types are the ones this OpenAPI document generates (npm run api:types)", async () => {
    const document = (await request(app.http).get('/docs-json').expect(200)).body as object;
    expect(await consoleApiTypesProblem(document, 'ingest-push')).toBeNull();
  });

  it('is a valid OpenAPI document that Try it out can send: parameters once, bodies, paging and error answers', async () => {
    const lists = [
      'GET /api/pushm/bulk',
      'GET /api/pushm/bulk/{batchId}',
      'GET /DataInserterSales/api/sales/ingestions',
      'GET /DataInserterSales/api/audit',
    ] as const;
    await expect(openApiProblems(doc, { lists: [...lists] })).resolves.toEqual([]);
    // The console's reads: the statistics take `window`, the run list `status`.
    expect(doc.paths['/api/pushm/stats'].get.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(['query:window']);
    expect(doc.paths['/DataInserterSales/api/sales/stats'].get.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(['query:window']);
    expect(doc.paths['/DataInserterSales/api/sales/ingestions'].get.parameters!.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      'query:page',
      'query:per_page',
      'query:status',
    ]);
    // The Idempotency-Key header is declared once, optional (it was also declared required as idempotency-key); dry_run beside it.
    expect(doc.paths['/api/pushm/bulk'].post.parameters!.map((p) => `${p.in}:${p.name}`).sort()).toEqual(['header:Idempotency-Key', 'query:dry_run']);
  });

  it('the push example and every sales file example work as sent', async () => {
    const pushs = doc.components.schemas.BulkPushDto.properties.pushs.example;
    const posted = await app.post(await app.token(), pushs).expect(202);
    expect(posted.body).toMatchObject({ accepted: 1, rejected: 0 });

    const key = await issueSalesApiKey(app.get(SalesApiKeysRepository), app.get(AccountsRepository), `docs-${process.pid}`, 'test');
    // Each Content-Type offers only its own example: Try it out sends what the chosen type says.
    const content = doc.paths['/DataInserterSales/api/sales'].post.requestBody.content;
    expect(Object.fromEntries(Object.entries(content).map(([type, c]) => [type, Object.keys(c.examples)]))).toEqual({
      'application/json': ['json'],
      'application/x-ndjson': ['ndjson'],
      'application/csv': ['csv'],
      'text/csv': ['csv'],
    });
    for (const [type, body] of [
      ['application/json', JSON.stringify(content['application/json'].examples.json.value)],
      ['application/x-ndjson', content['application/x-ndjson'].examples.ndjson.value],
      ['application/csv', content['application/csv'].examples.csv.value],
      ['text/csv', content['text/csv'].examples.csv.value],
    ]) {
      const sent = await request(app.http)
        .post('/DataInserterSales/api/sales')
        .set({ apiKey: key, 'content-type': type as string })
        .send(body as string);
      expect({ type, status: sent.status, body: sent.body }).toMatchObject({ type, status: 201, body: { status: 'completed', received: 1, rejected: 0 } });
    }
  });

  it('shows the credential hints with their placeholders (`<id>` is not taken as HTML)', () => {
    const schemes = (doc as unknown as { components: { securitySchemes: Record<string, { description?: string }> } }).components.securitySchemes;
    expect(schemes.apiKey.description).toBe('`sales_<id>_<secret>`');
    expect(schemes.bearer.description).toBe('`push_<id>_<secret>` (npm run -s push:token)');
  });
});
