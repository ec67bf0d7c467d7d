import express from 'express';
import request from 'supertest';
import { ResponseCheck } from './response-check';

const document = {
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        },
      },
    },
    '/pages': {
      get: {
        responses: {
          '200': {
            content: {
              'application/json': {
                schema: {
                  allOf: [{ $ref: '#/components/schemas/Page' }, { properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } } }],
                },
              },
            },
          },
        },
      },
    },
    '/free': { get: { responses: { '200': { content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } } } } },
    '/bare': { get: { responses: { '200': { description: 'no schema' } } } },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'string' }, name: { type: 'string', nullable: true }, size: { type: 'integer' } },
      },
      Page: { type: 'object', required: ['total'], properties: { total: { type: 'integer' } } },
    },
  },
};

async function problemsOf(answer: (path: string) => unknown, paths: string[]): Promise<string[]> {
  const check = new ResponseCheck();
  const app = express();
  app.use(check.middleware);
  app.use((req, res) => void res.json(answer(req.path)));
  for (const path of paths) await request(app).get(path);
  return check.check(() => Promise.resolve(document));
}

describe('ResponseCheck', () => {
  it('accepts answers that match, nullable fields and allOf pages included', async () => {
    const answers: Record<string, unknown> = {
      '/things/a': { id: 'a', name: null },
      '/pages': { total: 1, data: [{ id: 'a', name: 'x', size: 2 }] },
      '/free': { anything: [1, 2] },
    };
    expect(await problemsOf((path) => answers[path], Object.keys(answers))).toEqual([]);
  });

  it.each([
    ['an undocumented field', { id: 'a', name: 'x', secret: 1 }, /must NOT have unevaluated properties \(secret\)/],
    ['a missing required field', { id: 'a' }, /must have required property 'name'/],
    ['a wrong type', { id: 'a', name: 'x', size: '2' }, /\/size must be integer/],
  ])('fails %s', async (_case, body, message) => {
    const [problem] = await problemsOf(() => body, ['/things/a']);
    expect(problem).toMatch(/^GET \/things\/\{id\} 200: /);
    expect(problem).toMatch(message);
  });

  it('fails an undocumented field inside an allOf page', async () => {
    expect(await problemsOf(() => ({ total: 1, data: [], extra: true }), ['/pages'])).toEqual([expect.stringMatching(/unevaluated properties \(extra\)/)]);
  });

  it('fails JSON from an operation without a schema, or from no operation at all', async () => {
    expect(await problemsOf(() => ({}), ['/bare', '/nowhere'])).toEqual([
      'GET /bare 200: answered JSON, but the operation documents no schema for it',
      'GET /nowhere 200: no operation in the OpenAPI document matches',
    ]);
  });
});
