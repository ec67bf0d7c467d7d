import { Sql } from '@app/database';
import fc from 'fast-check';
import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';
import { SchemaCache } from '../src/schemas/schema-cache.service';

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
    await request(ds.http)
      .get(`${c.doc('production', 'shop', 'other')}/schema`)
      .set(c.auth)
      .expect(404);
    await request(ds.http)
      .get(`${c.doc('staging', 'shop', 'product')}/schema`)
      .set(c.auth)
      .expect(404);
    await request(ds.http)
      .post(`${c.doc('production', 'shop', 'other')}/k`)
      .set(c.auth)
      .send(docBody('k', { anything: 1 }, {}, 'production', 'shop', 'other'))
      .expect(201);
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
    const res = await request(ds.http)
      .put(`${c.doc()}/p2`)
      .set(c.auth)
      .send(docBody('p2', { name: 42 }))
      .expect(422);
    expect(res.body.errors).toEqual([{ property: 'name', message: expect.any(String) }]);
    const read = await request(ds.http).get(`${c.doc()}/p2`).set(c.auth).expect(200);
    expect(read.body).toMatchObject({ version: 1, data: { name: 'Ada' } });
    await request(ds.http)
      .put(`${c.doc()}/p2`)
      .set(c.auth)
      .send(docBody('p2', { name: 'Grace' }))
      .expect(200);
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
    await putSchema({ type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } } }).expect(
      201,
    );
    await createDoc('ok', { pair: ['a', 1] }).expect(201);
    const res = await createDoc('bad', { pair: ['a', 1, 2] }).expect(422);
    expect(res.body.errors).toEqual([{ property: 'pair', message: expect.any(String) }]);
    await putSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', required: ['z'] }).expect(200);
    await createDoc('z', {}).expect(422);
  });

  it('handles schemas with an $id, also when another scope uses the same $id', async () => {
    const schema = {
      $id: 'https://example.com/person',
      type: 'object',
      required: ['name'],
      $defs: { n: { type: 'string' } },
      properties: { name: { $ref: '#/$defs/n' } },
    };
    await putSchema(schema).expect(201);
    await putSchema(schema).expect(200);
    await request(ds.http)
      .post(`${c.doc('production', 'shop', 'other')}/schema`)
      .set(c.auth)
      .send({ schema })
      .expect(201);
    await createDoc('i1', { name: 'x' }).expect(201);
    expect((await createDoc('i2', { name: 1 }).expect(422)).body.errors).toEqual([{ property: 'name', message: expect.any(String) }]);
    const other = (key: string, data: Record<string, unknown>) =>
      request(ds.http)
        .post(`${c.doc('production', 'shop', 'other')}/${key}`)
        .set(c.auth)
        .send(docBody(key, data, {}, 'production', 'shop', 'other'));
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
      .send({
        documents: [
          { key: 'b0', data: { name: 'ok' } },
          { key: 'b1', data: { name: 'x', address: { city: 1 } } },
        ],
      })
      .expect(422);
    expect(res.body.errors).toEqual([{ property: 'documents.1.data.address.city', message: expect.any(String) }]);
    await request(ds.http).get(`${c.doc()}/b0`).set(c.auth).expect(404);
  });

  describe('patterns run in a linear-time engine', () => {
    const stringPattern = (pattern: string) => ({ type: 'object', properties: { s: { type: 'string', pattern } } });

    it('answers a catastrophic pattern with a long near-match normally, while other requests are served', async () => {
      await putSchema(stringPattern('^(a+)+$')).expect(201);
      await putSchema({
        type: 'object',
        properties: { s: { type: 'string', pattern: '^(a+)+$' } },
        patternProperties: { '^(b+)+$': { type: 'number' } },
      }).expect(200);
      const nearMatch = 'a'.repeat(100_000) + '!';
      const [refused, served, keyRefused] = await Promise.all([
        createDoc('evil', { s: nearMatch }),
        request(ds.http).get(`${c.doc()}?per_page=1`).set(c.auth),
        createDoc('evil-key', { ['b'.repeat(10_000) + 'b']: 'not a number' }),
      ]);
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual([{ property: 's', message: expect.stringContaining('pattern') }]);
      expect(served.status).toBe(200);
      expect(keyRefused.status).toBe(422);
      await createDoc('fine', { s: 'a'.repeat(100_000) }).expect(201);
      await createDoc('fine-key', { ['b'.repeat(1_000) + '!']: 'anything' }).expect(201);
    }, 20_000);

    it.each([
      ['a lookahead', stringPattern('^(?=a)a+$'), '(?=a)'],
      ['a backreference', stringPattern('^(a)\\1$'), '\\1'],
      ['a lookbehind in patternProperties', { type: 'object', patternProperties: { '(?<!x)y': { type: 'number' } } }, '(?<!x)y'],
    ])('refuses a schema with %s with 422 when it is stored', async (_, schema, shown) => {
      const res = await putSchema(schema).expect(422);
      expect(res.body.errors).toEqual([{ property: 'schema', message: expect.stringContaining(shown) }]);
      await request(ds.http).get(schemaUrl()).set(c.auth).expect(404);
    });

    it('any pattern is stored (201/200) or refused (422, nothing stored), and checking data with it never fails the server', async () => {
      const piece = fc.constantFrom(
        'a',
        'b',
        '.',
        '*',
        '+',
        '?',
        '(',
        ')',
        '[',
        ']',
        '{2,}',
        '|',
        '^',
        '$',
        '\\',
        '\\d',
        '\\1',
        '(?=',
        '(?<!',
        '(?<n>',
        '\\p{L}',
        '-',
        '{',
      );
      const pattern = fc.array(piece, { maxLength: 12 }).map((p) => p.join(''));
      await fc.assert(
        fc.asyncProperty(pattern, fc.string({ maxLength: 40 }), async (p, value) => {
          const stored = await putSchema(stringPattern(p));
          expect([200, 201, 422]).toContain(stored.status);
          if (stored.status === 422) {
            const current = await request(ds.http).get(schemaUrl()).set(c.auth);
            if (current.status === 200) expect(current.body.schema.properties.s.pattern).not.toBe(p);
            return;
          }
          const written = await createDoc(`k${Math.random().toString(36).slice(2)}`, { s: value });
          expect([201, 422]).toContain(written.status);
        }),
        { numRuns: 30 },
      );
    }, 120_000);

    it('keeps the usual pattern syntax: classes, quantifiers, anchors, unicode', async () => {
      await putSchema({
        type: 'object',
        properties: { zip: { type: 'string', pattern: '^\\d{5}(-\\d{4})?$' }, word: { type: 'string', pattern: '^\\p{L}+$' } },
        patternProperties: { '^x-[a-z]+$': { type: 'string' } },
      }).expect(201);
      await createDoc('ok', { zip: '12345-6789', word: 'Grüße', 'x-tag': 'y' }).expect(201);
      const res = await createDoc('bad', { zip: '1234', word: 'a1', 'x-tag': 5 }).expect(422);
      expect(res.body.errors.map((e: { property: string }) => e.property).sort()).toEqual(['word', 'x-tag', 'zip']);
    });
  });
});

describe('schemas across two app instances on one database', () => {
  let a: Docstore;
  let b: Docstore;
  let c: Client;
  const STRICT = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
  const LOOSE = { type: 'object', properties: { name: { type: 'string' } } };

  beforeAll(async () => {
    a = await startDocstore();
    b = await startDocstore();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });
  beforeEach(async () => {
    c = await a.newClient();
  });

  const putSchema = (ds: Docstore, schema: Record<string, unknown>) => request(ds.http).post(`${c.doc()}/schema`).set(c.auth).send({ schema });
  const write = (ds: Docstore, key: string, data: Record<string, unknown>) => request(ds.http).put(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, data));
  // A change through A is answered once A's own listener has its notification; B's listener
  // hears it milliseconds later. Awaited here so a loaded machine cannot reorder the two.
  const onB = async (change: () => PromiseLike<unknown>) => {
    const heard = b.get(SchemaCache).nextChange({ clientId: c.id, environment: 'production', context: 'shop', type: 'product' });
    await change();
    await heard;
  };

  it('a schema changed through instance A applies on instance B as soon as B hears of it', async () => {
    await request(a.http)
      .post(`${c.doc()}/doc`)
      .set(c.auth)
      .send(docBody('doc', { name: 'x' }))
      .expect(201);
    // B caches "no schema", then each change through A must reach B's next write once B's
    // listener has the notification.
    await write(b, 'doc', {}).expect(200);
    for (let round = 0; round < 5; round++) {
      await onB(() => putSchema(a, STRICT).expect(201));
      await write(b, 'doc', {}).expect(422);
      await write(b, 'doc', { name: 'ok' }).expect(200);
      await onB(() => putSchema(a, LOOSE).expect(200));
      await write(b, 'doc', {}).expect(200);
      await onB(() => putSchema(a, STRICT).expect(200));
      await write(b, 'doc', {}).expect(422);
      await onB(() => request(a.http).delete(`${c.doc()}/schema`).set(c.auth).expect(204));
      await write(b, 'doc', {}).expect(200);
    }
  });

  it('a replica whose LISTEN connection dropped never uses a schema it may have missed a change of', async () => {
    await request(a.http)
      .post(`${c.doc()}/doc`)
      .set(c.auth)
      .send(docBody('doc', { name: 'x' }))
      .expect(201);
    await putSchema(a, LOOSE).expect(201);
    await write(b, 'doc', {}).expect(200);
    const sql = a.get(Sql);
    const listeners = `FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'docstore-schema-listener'`;
    const dropped = (await sql.rows<{ pid: number }>(`SELECT pid, pg_terminate_backend(pid) ${listeners}`)).map((r) => r.pid);
    // Changed while the replicas may not listen: B must not keep the loose schema it cached.
    await putSchema(a, STRICT).expect(200);
    const back = `SELECT count(*)::int AS n ${listeners} AND state = 'idle' AND NOT pid = ANY($1::int[])`;
    while ((await sql.one<{ n: number }>(back, [dropped]))!.n < 2) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await write(b, 'doc', {}).expect(422);
    // Listening again: B caches the strict schema and drops it when it hears of the next change.
    await onB(() => putSchema(a, LOOSE).expect(200));
    await write(b, 'doc', {}).expect(200);
  });
});
