import { Sql } from '@app/database';
import { docBody, request, startDocstore, type Client, type Docstore, useDocstore } from './support/docstore-test';

interface Doc {
  key: string;
  version: number;
  data: Record<string, unknown>;
  expires_at: string | null;
  deleted_at: string | null;
}

describe('bulk writes', () => {
  let ds: Docstore;
  let c: Client;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) });

  const bulk = (documents: unknown, client: Client = c, auth = client.auth) => request(ds.http).post(`${client.doc()}/bulk`).set(auth).send({ documents });
  const create = (key: string, data: Record<string, unknown>) => request(ds.http).post(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, data)).expect(201);
  /** Every row of this client, deleted or not: key → [version, data]. */
  const snapshot = async () =>
    Object.fromEntries(
      (
        await ds
          .get(Sql)
          .rows<{ key: string; version: number; data: unknown }>('SELECT key, version, data FROM docstore.documents WHERE client_id = $1 ORDER BY key', [c.id])
      ).map((r) => [r.key, [r.version, r.data]]),
    );
  const historyCount = async () =>
    (await ds.get(Sql).one<{ n: number }>('SELECT count(*)::int AS n FROM docstore.document_history WHERE client_id = $1', [c.id]))!.n;

  it('creates 1,000 documents in one request, in input order, at version 1', async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `item-${(i * 7919) % 1000}`);
    const res = await bulk(keys.map((key, i) => ({ key, data: { i } }))).expect(200);
    expect(res.body).toHaveLength(1000);
    res.body.forEach((doc: Doc, i: number) => {
      expect(doc).toMatchObject({
        key: keys[i],
        data: { i },
        version: 1,
        client_id: c.id,
        environment: 'production',
        context: 'shop',
        type: 'product',
        deleted_at: null,
        expires_at: null,
      });
    });
    const page = await request(ds.http).get(`${c.doc()}?per_page=1`).set(c.auth).expect(200);
    expect(page.body.total).toBe(1000);
    expect(await historyCount()).toBe(1000);
  });

  it('creates, updates and revives in one request', async () => {
    await create('existing', { v: 1 });
    await create('deleted', { v: 1 });
    await request(ds.http).delete(`${c.doc()}/deleted`).set(c.auth).expect(200);
    await create('expired', { v: 1 });
    await ds.get(Sql).rows(`UPDATE docstore.documents SET expires_at = now() - interval '1 second' WHERE key = 'expired' AND client_id = $1`, [c.id]);

    const res = await bulk([
      { key: 'new', data: { v: 'new' }, ttl: 120 },
      { key: 'existing', data: { v: 2 } },
      { key: 'deleted', data: { v: 2 } },
      { key: 'expired', data: { v: 2 }, expires_at: '2099-01-01T00:00:00Z' },
    ]).expect(200);
    expect(res.body.map((d: Doc) => [d.key, d.version, d.data, d.deleted_at])).toEqual([
      ['new', 1, { v: 'new' }, null],
      ['existing', 2, { v: 2 }, null],
      ['deleted', 2, { v: 2 }, null],
      ['expired', 2, { v: 2 }, null],
    ]);
    expect(res.body[0].expires_at).toMatch(/^\d{4}-.*Z$/);
    expect(res.body[3].expires_at).toBe('2099-01-01T00:00:00.000000Z');
    for (const key of ['new', 'existing', 'deleted', 'expired']) {
      await request(ds.http).get(`${c.doc()}/${key}`).set(c.auth).expect(200);
    }
  });

  it('writes a history entry for every version it makes', async () => {
    await create('h', { v: 1 });
    await bulk([
      { key: 'h', data: { v: 2 } },
      { key: 'other', data: {} },
    ]).expect(200);
    await bulk([{ key: 'h', data: { v: 3 } }]).expect(200);
    const history = await request(ds.http).get(`${c.doc()}/h/history`).set(c.auth).expect(200);
    expect(history.body.data.map((e: Doc) => [e.version, e.data])).toEqual([
      [3, { v: 3 }],
      [2, { v: 2 }],
      [1, { v: 1 }],
    ]);
    const other = await request(ds.http).get(`${c.doc()}/other/history`).set(c.auth).expect(200);
    expect(other.body.total).toBe(1);
  });

  it('clears expires_at on an update that gives none', async () => {
    await request(ds.http)
      .post(`${c.doc()}/x`)
      .set(c.auth)
      .send(docBody('x', {}, { ttl: 600 }))
      .expect(201);
    const res = await bulk([{ key: 'x', data: { a: 1 } }]).expect(200);
    expect(res.body[0]).toMatchObject({ version: 2, expires_at: null });
  });

  describe('refuses the whole request, writing nothing', () => {
    beforeEach(async () => {
      await create('keep', { v: 1 });
    });

    it.each([
      ['an empty array', [], 'documents'],
      ['documents not an array', { key: 'a', data: {} }, 'documents'],
      [
        'duplicate keys',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'fresh', data: {} },
          { key: 'keep', data: { v: 3 } },
        ],
        'documents.2.key',
      ],
      [
        'the reserved key bulk',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'bulk', data: {} },
        ],
        'documents.1.key',
      ],
      [
        'the reserved key schema',
        [
          { key: 'fresh', data: {} },
          { key: 'schema', data: {} },
        ],
        'documents.1.key',
      ],
      [
        'data not an object',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'fresh', data: [1] },
        ],
        'documents.1.data',
      ],
      ['a missing key', [{ key: 'keep', data: { v: 2 } }, { data: {} }], 'documents.1.key'],
      [
        'a key with a slash',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'a/b', data: {} },
        ],
        'documents.1.key',
      ],
      [
        'an unknown item field',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'fresh', data: {}, colour: 'red' },
        ],
        'documents.1.colour',
      ],
      ['an item that is not an object', [{ key: 'keep', data: { v: 2 } }, 'fresh'], 'documents.1'],
      [
        'ttl and expires_at together',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'fresh', data: {}, ttl: 5, expires_at: '2099-01-01T00:00:00Z' },
        ],
        'documents.1.ttl',
      ],
      [
        'a bad ttl',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'fresh', data: {}, ttl: -5 },
        ],
        'documents.1.ttl',
      ],
      [
        'an expires_at PostgreSQL cannot read',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'fresh', data: {}, expires_at: '2099-W05-3' },
        ],
        'documents.1.expires_at',
      ],
      [
        'a NUL character in data',
        [
          { key: 'keep', data: { v: 2 } },
          { key: 'fresh', data: { s: '\u0000' } },
        ],
        'documents.1.data.s',
      ],
    ])('%s → 422', async (_name, documents, field) => {
      const before = await snapshot();
      const res = await bulk(documents).expect(422);
      expect(res.body.message).toEqual(expect.any(String));
      expect(Object.keys(res.body.errors)).toContain(field);
      expect(await snapshot()).toEqual(before);
      expect(before).toEqual({ keep: [1, { v: 1 }] });
      expect(await historyCount()).toBe(1);
    });

    it('a schema violation in one item → 422 naming the item, nothing written', async () => {
      await request(ds.http)
        .post(`${c.doc()}/schema`)
        .set(c.auth)
        .send({ schema: { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] } })
        .expect(201);
      const res = await bulk([
        { key: 'keep', data: { price: 2 } },
        { key: 'fresh', data: { price: 3 } },
        { key: 'bad', data: { price: 'cheap' } },
        { key: 'worse', data: {} },
      ]).expect(422);
      expect(res.body).toEqual({
        message: expect.any(String),
        errors: expect.arrayContaining([
          { property: 'documents.2.data.price', message: expect.any(String) },
          { property: 'documents.3.data.price', message: expect.any(String) },
        ]),
      });
      expect(await snapshot()).toEqual({ keep: [1, { v: 1 }] });
      expect(await historyCount()).toBe(1);
      const ok = await bulk([
        { key: 'keep', data: { price: 2 } },
        { key: 'fresh', data: { price: 3 } },
      ]).expect(200);
      expect(ok.body.map((d: Doc) => d.version)).toEqual([2, 1]);
    });

    it('a body without documents → 422', async () => {
      const res = await request(ds.http).post(`${c.doc()}/bulk`).set(c.auth).send({}).expect(422);
      expect(res.body.errors).toHaveProperty(['documents']);
      expect(await snapshot()).toEqual({ keep: [1, { v: 1 }] });
    });
  });

  it('needs both document:create and document:update', async () => {
    const createOnly = await ds.mintToken(c.id, ['document:create']);
    const updateOnly = await ds.mintToken(c.id, ['document:update']);
    const both = await ds.mintToken(c.id, ['document:create', 'document:update']);
    const items = [{ key: 'a', data: {} }];
    const denied = await bulk(items, c, { Authorization: `Bearer ${createOnly}` }).expect(403);
    expect(denied.body).toMatchObject({ error: 'Forbidden', message: expect.stringContaining('document:update') });
    const denied2 = await bulk(items, c, { Authorization: `Bearer ${updateOnly}` }).expect(403);
    expect(denied2.body).toMatchObject({ error: 'Forbidden', message: expect.stringContaining('document:create') });
    expect(await snapshot()).toEqual({});
    await bulk(items, c, { Authorization: `Bearer ${both}` }).expect(200);
    expect(await snapshot()).toEqual({ a: [1, {}] });
  });

  describe('under concurrency', () => {
    const shuffled = <T>(items: T[], seed: number): T[] => {
      const out = [...items];
      let x = seed;
      for (let i = out.length - 1; i > 0; i--) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        const j = x % (i + 1);
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    };
    const keys = Array.from({ length: 500 }, (_, i) => `k${i}`);

    it('ten parallel bulks of the same 500 keys in different orders all answer 200', async () => {
      await bulk(keys.slice(0, 250).map((key) => ({ key, data: { round: 0 } }))).expect(200);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, round) => bulk(shuffled(keys, round + 1).map((key) => ({ key, data: { round: round + 1 } })))),
      );
      expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
      const rows = await snapshot();
      expect(Object.keys(rows)).toHaveLength(500);
      // Each bulk made one version of every key: 10 on top of the 250 created first.
      for (const key of keys) expect(rows[key][0]).toBe(Number(key.slice(1)) < 250 ? 11 : 10);
      expect(await historyCount()).toBe(250 + 10 * 500);
    });

    it('parallel bulks and PUTs on the same keys never answer 5xx', async () => {
      const few = keys.slice(0, 50);
      await bulk(few.map((key) => ({ key, data: { v: 0 } }))).expect(200);
      const puts = few.flatMap((key) =>
        [key, key].map((k, i) =>
          request(ds.http)
            .put(`${c.doc()}/${k}`)
            .set(c.auth)
            .send(docBody(k, { put: i })),
        ),
      );
      const bulks = [1, 2, 3, 4].map((seed) => bulk(shuffled(few, seed).map((key) => ({ key, data: { bulk: seed } }))));
      const statuses = (await Promise.all([...bulks, ...puts])).map((r) => r.status);
      expect(statuses).toEqual(Array(statuses.length).fill(200));
      const rows = await snapshot();
      expect(Object.values(rows).map(([version]) => version)).toEqual(Array(50).fill(1 + 4 + 2));
    });

    it('runs a bulk again when PostgreSQL picks it as a deadlock victim', async () => {
      await bulk([
        { key: 'a', data: { v: 0 } },
        { key: 'b', data: { v: 0 } },
      ]).expect(200);
      const sql = ds.get(Sql);
      const [waiting] = await sql.transaction(async (tx) => {
        // This side waits longer before checking for a deadlock, so PostgreSQL aborts the bulk.
        await tx.rows(`SET LOCAL deadlock_timeout = '20s'`);
        await tx.rows(`SELECT 1 FROM docstore.documents WHERE client_id = $1 AND key = 'b' FOR UPDATE`, [c.id]);
        const sent = bulk([
          { key: 'a', data: { v: 'bulk' } },
          { key: 'b', data: { v: 'bulk' } },
        ]).then((r) => r);
        const blocked = `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
        while (!(await sql.one(blocked))) await new Promise((r) => setTimeout(r, 5));
        await tx.rows(`UPDATE docstore.documents SET data = '{"v":"other"}' WHERE client_id = $1 AND key = 'a'`, [c.id]);
        return [sent];
      });
      const res = await waiting;
      expect(res.status).toBe(200);
      expect(res.body.map((d: Doc) => [d.key, d.data])).toEqual([
        ['a', { v: 'bulk' }],
        ['b', { v: 'bulk' }],
      ]);
    });
  });

  describe('with BULK_MAX_ITEMS=10', () => {
    let small: Docstore;

    beforeAll(async () => {
      small = await startDocstore({ BULK_MAX_ITEMS: '10' });
    });
    afterAll(() => small.close());

    it('accepts 10 items and refuses 11 without writing', async () => {
      const client = await small.newClient();
      const items = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, data: { i } }));
      const post = (documents: unknown) => request(small.http).post(`${client.doc()}/bulk`).set(client.auth).send({ documents });
      const res = await post(items(11, 'big')).expect(422);
      expect(res.body.errors).toHaveProperty(['documents']);
      const count = async () => (await request(small.http).get(`${client.doc()}?per_page=1`).set(client.auth).expect(200)).body.total;
      expect(await count()).toBe(0);
      expect((await post(items(10, 'ok')).expect(200)).body).toHaveLength(10);
      expect(await count()).toBe(10);
    });
  });
});
