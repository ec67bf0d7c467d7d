import { openApiProblems } from './openapi-check';

const ERROR = { description: 'refused', content: { 'application/json': { schema: { type: 'object' } } } };
const PAGE = [
  { name: 'page', in: 'query', required: false, schema: { type: 'integer' } },
  { name: 'per_page', in: 'query', required: false, schema: { type: 'integer' } },
];

interface Op {
  parameters: object[];
  requestBody?: object;
  security?: object[];
  responses: Record<string, object> | string;
}
type Doc = Record<string, unknown> & { paths: Record<string, Record<string, Op>> };

/** A small document that passes every check; each test breaks one thing. */
function document(): Doc {
  return {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths: {
      '/items': {
        get: { parameters: [...PAGE], security: [{ bearer: [] }], responses: { 200: { description: 'ok' }, 401: ERROR } },
        post: {
          parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: { 201: { description: 'ok' }, 422: ERROR },
        },
      },
      '/items/{id}': {
        get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { 200: { description: 'ok' }, 404: ERROR } },
      },
    },
  };
}

describe('openApiProblems', () => {
  const lists = ['GET /items'] as const;

  it('finds nothing wrong with a complete document', async () => {
    await expect(openApiProblems(document(), { lists: [...lists] })).resolves.toEqual([]);
  });

  it('names a document the OpenAPI schema refuses', async () => {
    const doc = document();
    doc.paths['/items'].get.responses = 'none';
    await expect(openApiProblems(doc, { lists: [...lists] })).resolves.toContainEqual(expect.stringMatching(/^not a valid OpenAPI document/));
  });

  it('names a header declared twice in different case, as Nest does with @Headers and @ApiHeader', async () => {
    const doc = document();
    doc.paths['/items'].post.parameters.push({ name: 'idempotency-key', in: 'header', required: true, schema: { type: 'string' } });
    await expect(openApiProblems(doc, { lists: [...lists] })).resolves.toEqual(['POST /items: the header parameter idempotency-key is declared twice']);
  });

  it('names an undeclared path parameter, a write without a body schema and a list without paging', async () => {
    const doc = document();
    doc.paths['/items/{id}'].get.parameters = [];
    delete doc.paths['/items'].post.requestBody;
    doc.paths['/items'].get.parameters = [];
    await expect(openApiProblems(doc, { lists: [...lists] })).resolves.toEqual([
      'POST /items: takes a body but declares none',
      'GET /items/{id}: the path parameter id is not declared (required)',
      'GET /items: a list that does not declare page and per_page',
    ]);
  });

  it('accepts a write named as bodiless, and paging only on the lists named', async () => {
    const doc = document();
    delete doc.paths['/items'].post.requestBody;
    await expect(openApiProblems(doc, { lists: [], bodiless: ['POST /items'] })).resolves.toEqual([
      'GET /items: declares page and per_page but is not a known list',
    ]);
  });

  it('names an operation whose success answer is not documented', async () => {
    const doc = document();
    doc.paths['/items'].post.responses = { 422: ERROR };
    await expect(openApiProblems(doc, { lists: [...lists] })).resolves.toEqual(['POST /items: documents no success answer']);
  });

  it('names undocumented errors: none at all, a 4xx without a body schema, a secured operation without 401', async () => {
    const doc = document();
    doc.paths['/items/{id}'].get.responses = { 200: { description: 'ok' } };
    (doc.paths['/items'].post.responses as Record<string, object>)[422] = { description: 'refused' };
    doc.paths['/items'].get.responses = { 200: { description: 'ok' }, 422: ERROR };
    await expect(openApiProblems(doc, { lists: [...lists] })).resolves.toEqual([
      'GET /items: needs credentials but does not document 401',
      'POST /items: its 422 answer has no body schema',
      'GET /items/{id}: documents no error answer',
    ]);
  });
});
