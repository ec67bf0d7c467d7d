import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

const PERSON = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string' },
    email: { type: 'string', format: 'email' },
    born: { type: 'string', format: 'date' },
    address: { type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string', pattern: '^\\d{5}$' } } },
  },
};

describe('schemas', () => {
  let ds: Docstore;
  let c: Client;
  const schemaUrl = (): string => `${c.doc()}/schema`;
  const putSchema = (schema: Record<string, unknown>) => request(ds.http).post(schemaUrl()).set(c.auth).send({ schema });
  const createDoc = (key: string, data: Record<string, unknown>) => request(ds.http).post(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, data));

  beforeAll(async () => {
    ds = await startDocstore();
  });
  afterAll(() => ds.close());
  beforeEach(async () => {
    c = await ds.newClient();
  });

  it('creates (201), replaces (200), reads, and deletes (204) a schema', async () => {
    await request(ds.http).get(schemaUrl()).set(c.auth).expect(404);
    const created = await putSchema(PERSON).expect(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      client_id: c.id,
      environment: 'production',
      context: 'shop',
      type: 'product',
      schema: PERSON,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
    });

    const replacement = { type: 'object', required: ['sku'] };
    const replaced = await putSchema(replacement).expect(200);
    expect(replaced.body).toMatchObject({ id: created.body.id, schema: replacement, created_at: created.body.created_at });

    const read = await request(ds.http).get(schemaUrl()).set(c.auth).expect(200);
    expect(read.body).toEqual(replaced.body);

    const deleted = await request(ds.http).delete(schemaUrl()).set(c.auth).expect(204);
    expect(deleted.text).toBe('');
    expect((await request(ds.http).get(schemaUrl()).set(c.auth).expect(404)).body).toEqual({ message: expect.any(String) });
    await request(ds.http).delete(schemaUrl()).set(c.auth).expect(404);
  });

  it('keeps schemas apart per environment, context and type', async () => {
    await putSchema(PERSON).expect(201);
    await request(ds.http).get(`${c.doc('production', 'shop', 'other')}/schema`).set(c.auth).expect(404);
    await request(ds.http).get(`${c.doc('staging', 'shop', 'product')}/schema`).set(c.auth).expect(404);
    await request(ds.http).post(`${c.doc('production', 'shop', 'other')}/k`).set(c.auth).send(docBody('k', { anything: 1 }, {}, 'production', 'shop', 'other')).expect(201);
  });

  it.each([
    ['an unknown type', { type: 'strng' }],
    ['a non-array required', { type: 'object', required: 'name' }],
    ['an unsupported $schema', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }],
    ['a bad pattern', { type: 'string', pattern: '(' }],
  ])('refuses %s with 422 {message, errors:[{property, message}]}', async (_, schema) => {
    const res = await putSchema(schema).expect(422);
    expect(res.body).toEqual({ message: expect.any(String), errors: expect.arrayContaining([{ property: expect.any(String), message: expect.any(String) }]) });
    await request(ds.http).get(schemaUrl()).set(c.auth).expect(404);
  });

  it.each([
    ['a missing schema', {}],
    ['a schema that is not an object', { schema: 'x' }],
  ])('refuses %s in the body with 422', async (_, body) => {
    const res = await request(ds.http).post(schemaUrl()).set(c.auth).send(body).expect(422);
    expect(res.body.errors).toHaveProperty('schema');
  });

  it('rejects documents that break the schema with dot paths, and writes nothing', async () => {
    await putSchema(PERSON).expect(201);
    const res = await createDoc('p1', { email: 'nobody@example.com', address: { city: 7, zip: '123' } }).expect(422);
    expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { property: 'name', message: expect.any(String) },
        { property: 'address.city', message: expect.any(String) },
        { property: 'address.zip', message: expect.any(String) },
      ]),
    );
    expect(res.body.errors).toHaveLength(3);
    await request(ds.http).get(`${c.doc()}/p1`).set(c.auth).query({ deleted: 'true' }).expect(404);
  });

  it('names root problems (root)', async () => {
    await putSchema({ type: 'object', maxProperties: 1 }).expect(201);
    const res = await createDoc('r', { a: 1, b: 2 }).expect(422);
    expect(res.body.errors).toEqual([{ property: '(root)', message: expect.any(String) }]);
  });

  it('checks PUT against the schema and leaves the document unchanged on failure', async () => {
    await createDoc('p2', { name: 'Ada' }).expect(201);
    await putSchema(PERSON).expect(201);
    const res = await request(ds.http).put(`${c.doc()}/p2`).set(c.auth).send(docBody('p2', { name: 42 })).expect(422);
    expect(res.body.errors).toEqual([{ property: 'name', message: expect.any(String) }]);
    const read = await request(ds.http).get(`${c.doc()}/p2`).set(c.auth).expect(200);
    expect(read.body).toMatchObject({ version: 1, data: { name: 'Ada' } });
    await request(ds.http).put(`${c.doc()}/p2`).set(c.auth).send(docBody('p2', { name: 'Grace' })).expect(200);
  });

  it('enforces formats', async () => {
    await putSchema(PERSON).expect(201);
    const res = await createDoc('f', { name: 'x', email: 'not-an-email', born: '2024-13-45' }).expect(422);
    expect(res.body.errors.map((e: { property: string }) => e.property).sort()).toEqual(['born', 'email']);
    await createDoc('f', { name: 'x', email: 'x@example.com', born: '2024-02-29' }).expect(201);
  });

  it('accepts anything again once the schema is deleted', async () => {
    await putSchema(PERSON).expect(201);
    await createDoc('d', { nope: true }).expect(422);
    await request(ds.http).delete(schemaUrl()).set(c.auth).expect(204);
    await createDoc('d', { nope: true }).expect(201);
  });

  it('applies a replaced schema at once', async () => {
    await putSchema({ type: 'object', required: ['a'] }).expect(201);
    await createDoc('x1', { a: 1 }).expect(201);
    await putSchema({ type: 'object', required: ['b'] }).expect(200);
    await createDoc('x2', { a: 1 }).expect(422);
    await createDoc('x2', { b: 1 }).expect(201);
  });

  it('reads draft-07 schemas as draft-07', async () => {
    const schema = { $schema: DRAFT_07, type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } } };
    await putSchema(schema).expect(201);
    await createDoc('ok', { pair: ['a', 1] }).expect(201);
    const res = await createDoc('bad', { pair: [1, 'a'] }).expect(422);
    expect(res.body.errors.map((e: { property: string }) => e.property).sort()).toEqual(['pair.0', 'pair.1']);
  });

  it('reads schemas as draft 2020-12 by default', async () => {
    // an array-valued `items` is draft-07 only: 2020-12 refuses it
    await putSchema({ type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }] } } }).expect(422);
    await putSchema({ type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } } }).expect(201);
    await createDoc('ok', { pair: ['a', 1] }).expect(201);
    const res = await createDoc('bad', { pair: ['a', 1, 2] }).expect(422);
    expect(res.body.errors).toEqual([{ property: 'pair', message: expect.any(String) }]);
    await putSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['z'] }).expect(200);
    await createDoc('z', {}).expect(422);
  });

  it('handles schemas with an $id, also when another scope uses the same $id', async () => {
    const schema = { $id: 'https://example.com/person', type: 'object', required: ['name'], $defs: { n: { type: 'string' } }, properties: { name: { $ref: '#/$defs/n' } } };
    await putSchema(schema).expect(201);
    await putSchema(schema).expect(200);
    await request(ds.http).post(`${c.doc('production', 'shop', 'other')}/schema`).set(c.auth).send({ schema }).expect(201);
    await createDoc('i1', { name: 'x' }).expect(201);
    expect((await createDoc('i2', { name: 1 }).expect(422)).body.errors).toEqual([{ property: 'name', message: expect.any(String) }]);
    const other = (key: string, data: Record<string, unknown>) =>
      request(ds.http).post(`${c.doc('production', 'shop', 'other')}/${key}`).set(c.auth).send(docBody(key, data, {}, 'production', 'shop', 'other'));
    await other('i3', { name: 'y' }).expect(201);
    await other('i4', {}).expect(422);
  });

  it('refuses a schema that claims a meta-schema $id, and keeps working afterwards', async () => {
    const refused = await putSchema({ $id: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['a'] }).expect(422);
    expect(refused.body.errors).toEqual([{ property: 'schema', message: expect.stringContaining('already exists') }]);
    await putSchema({ $id: 'http://json-schema.org/draft-07/schema#', $schema: DRAFT_07, type: 'object', required: ['b'] }).expect(422);
    await putSchema({ type: 'object', required: ['b'] }).expect(201);
    await createDoc('m1', {}).expect(422);
    await putSchema({ type: 'strng' }).expect(422);
    await putSchema({ $schema: DRAFT_07, type: 'strng' }).expect(422);
    await putSchema({ $schema: DRAFT_07, type: 'object' }).expect(200);
    await createDoc('m1', {}).expect(201);
  });

  it('checks bulk items and writes nothing when one fails', async () => {
    await putSchema(PERSON).expect(201);
    const res = await request(ds.http)
      .post(`${c.doc()}/bulk`)
      .set(c.auth)
      .send({ documents: [{ key: 'b0', data: { name: 'ok' } }, { key: 'b1', data: { name: 'x', address: { city: 1 } } }] })
      .expect(422);
    expect(res.body.errors).toEqual([{ property: 'documents.1.data.address.city', message: expect.any(String) }]);
    await request(ds.http).get(`${c.doc()}/b0`).set(c.auth).expect(404);
  });
});
