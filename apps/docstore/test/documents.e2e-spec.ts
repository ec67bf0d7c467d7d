import { Sql } from '@app/database';
import { docBody, request, type Client, type Docstore, useDocstore } from './support/docstore-test';

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('documents', () => {
  let ds: Docstore;
  let c: Client;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) });

  const create = (key: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    request(ds.http)
      .post(`${c.doc()}/${key}`)
      .set(c.auth)
      .send(docBody(key, data, extra));
  const put = (key: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    request(ds.http)
      .put(`${c.doc()}/${key}`)
      .set(c.auth)
      .send(docBody(key, data, extra));
  const get = (key: string, query = '') => request(ds.http).get(`${c.doc()}/${key}${query}`).set(c.auth);
  const del = (key: string) => request(ds.http).delete(`${c.doc()}/${key}`).set(c.auth);
  const listKeys = async (query = '') =>
    (await request(ds.http).get(`${c.doc()}?sort=_key${query}`).set(c.auth).expect(200)).body.data.map((d: { key: string }) => d.key);
  /** Makes the document expired, as if its expires_at had passed. */
  const expire = (key: string) =>
    ds.get(Sql).rows(`UPDATE docstore.documents SET expires_at = now() - interval '1 second' WHERE key = $1 AND client_id = $2`, [key, c.id]);
  const rowCount = async () => (await ds.get(Sql).one<{ n: number }>('SELECT count(*)::int AS n FROM docstore.documents WHERE client_id = $1', [c.id]))!.n;

  describe('create and read', () => {
    it('creates a document at version 1 and reads it back', async () => {
      const created = await create('sku-1', { price: 10 }).expect(201);
      expect(Object.keys(created.body).sort()).toEqual([
        'client_id',
        'context',
        'created_at',
        'data',
        'deleted_at',
        'environment',
        'expires_at',
        'id',
        'key',
        'type',
        'updated_at',
        'version',
      ]);
      expect(created.body).toMatchObject({
        client_id: c.id,
        environment: 'production',
        context: 'shop',
        type: 'product',
        key: 'sku-1',
        data: { price: 10 },
        version: 1,
        expires_at: null,
        deleted_at: null,
      });
      expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.body.created_at).toMatch(TIMESTAMP);
      expect(created.body.updated_at).toMatch(TIMESTAMP);
      expect(created.headers.etag).toBe('"1"');
      const read = await get('sku-1').expect(200);
      expect(read.body).toEqual(created.body);
      expect(read.headers.etag).toBe('"1"');
    });

    it('keeps nested and unicode data exactly', async () => {
      const data = { name: 'Grüße 日本', nested: { list: [1, 'two', null, { deep: true }], n: 1.5 }, empty: {} };
      await create('nested', data).expect(201);
      expect((await get('nested').expect(200)).body.data).toEqual(data);
    });

    it('answers 409 when a live document exists and keeps the original', async () => {
      await create('dup', { v: 1 }).expect(201);
      const res = await create('dup', { v: 2 }).expect(409);
      expect(res.body).toEqual({ message: expect.any(String) });
      const read = await get('dup').expect(200);
      expect(read.body).toMatchObject({ data: { v: 1 }, version: 1 });
    });

    it('separates documents by environment, context and type', async () => {
      await create('same', { where: 'product' }).expect(201);
      await request(ds.http)
        .get(`${c.doc('staging')}/same`)
        .set(c.auth)
        .expect(404);
      await request(ds.http)
        .get(`${c.doc('production', 'blog')}/same`)
        .set(c.auth)
        .expect(404);
      await request(ds.http)
        .get(`${c.doc('production', 'shop', 'order')}/same`)
        .set(c.auth)
        .expect(404);
      const other = await request(ds.http)
        .post(`${c.doc('staging')}/same`)
        .set(c.auth)
        .send(docBody('same', { where: 'staging' }, {}, 'staging'))
        .expect(201);
      expect(other.body).toMatchObject({ environment: 'staging', version: 1 });
      expect((await get('same').expect(200)).body.data).toEqual({ where: 'product' });
    });

    it('answers 404 with a message for a missing document', async () => {
      const res = await get('missing').expect(404);
      expect(res.body).toEqual({ message: expect.any(String) });
      await get('missing', '?deleted=true').expect(404);
    });

    it.each([
      ['key', { key: 'other' }],
      ['environment', { environment: 'staging' }],
      ['context', { context: 'blog' }],
      ['type', { type: 'order' }],
    ])('answers 400 when the body %s differs from the path, writing nothing', async (_field, override) => {
      const res = await request(ds.http)
        .post(`${c.doc()}/k1`)
        .set(c.auth)
        .send({ ...docBody('k1', { a: 1 }), ...override })
        .expect(400);
      expect(res.body).toEqual({ message: expect.any(String) });
      expect(await rowCount()).toBe(0);
    });

    it('answers 400 on PUT with a mismatching key and leaves the document alone', async () => {
      await create('k1', { a: 1 }).expect(201);
      const res = await request(ds.http)
        .put(`${c.doc()}/k1`)
        .set(c.auth)
        .send(docBody('k2', { a: 2 }))
        .expect(400);
      expect(res.body).toEqual({ message: expect.any(String) });
      expect((await get('k1').expect(200)).body).toMatchObject({ version: 1, data: { a: 1 } });
    });

    it.each([
      ['data missing', { data: undefined }, 'data'],
      ['data an array', { data: [1, 2] }, 'data'],
      ['data a string', { data: 'text' }, 'data'],
      ['data null', { data: null }, 'data'],
      ['an unknown field', { colour: 'red' }, 'colour'],
      ['ttl zero', { ttl: 0 }, 'ttl'],
      ['ttl not an integer', { ttl: 1.5 }, 'ttl'],
      ['ttl a string', { ttl: '60' }, 'ttl'],
      ['expires_at not a date', { expires_at: 'tomorrow' }, 'expires_at'],
      ['both ttl and expires_at', { ttl: 60, expires_at: '2099-01-01T00:00:00Z' }, 'ttl'],
      ['an ISO week date PostgreSQL cannot read', { expires_at: '2099-W05-3' }, 'expires_at'],
      ['an ISO date-time with a comma fraction', { expires_at: '2099-01-01T00:00:00,5Z' }, 'expires_at'],
      ['a NUL character in a data string', { data: { name: 'a\u0000b' } }, 'data.name'],
      ['a NUL character in a data key', { data: { nested: { 'a\u0000': 1 } } }, 'data.nested'],
      ['an unpaired surrogate in data', { data: { list: ['\ud800'] } }, 'data.list.0'],
    ])('answers 422 for %s, writing nothing', async (_name, override, field) => {
      const res = await request(ds.http)
        .post(`${c.doc()}/bad`)
        .set(c.auth)
        .send({ ...docBody('bad', { a: 1 }), ...override })
        .expect(422);
      expect(res.body).toEqual({ message: expect.any(String), errors: expect.objectContaining({ [field]: expect.arrayContaining([expect.any(String)]) }) });
      expect(await rowCount()).toBe(0);
    });

    it('answers 422 for a missing environment in the body', async () => {
      const { environment: _omit, ...body } = docBody('k', { a: 1 });
      const res = await request(ds.http).post(`${c.doc()}/k`).set(c.auth).send(body).expect(422);
      expect(Object.keys(res.body.errors)).toContain('environment');
    });

    it('does not create a document at the reserved key "bulk"', async () => {
      await request(ds.http)
        .post(`${c.doc()}/bulk`)
        .set(c.auth)
        .send(docBody('bulk', { a: 1 }))
        .expect(422);
      expect(await rowCount()).toBe(0);
    });
  });

  describe('expiry', () => {
    it('ttl sets expires_at to now plus ttl seconds', async () => {
      const before = Date.now();
      const res = await create('t', { a: 1 }, { ttl: 3600 }).expect(201);
      const after = Date.now();
      expect(res.body.expires_at).toMatch(TIMESTAMP);
      const expires = Date.parse(res.body.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
      expect(expires).toBeLessThanOrEqual(after + 3600_000 + 1000);
      expect((await get('t').expect(200)).body.expires_at).toBe(res.body.expires_at);
    });

    it('stores an explicit expires_at', async () => {
      const res = await create('e', { a: 1 }, { expires_at: '2099-05-06T07:08:09Z' }).expect(201);
      expect(res.body.expires_at).toBe('2099-05-06T07:08:09.000000Z');
      const micro = await create('micro', { a: 1 }, { expires_at: '2099-05-06T07:08:09.123456+02:00' }).expect(201);
      expect(micro.body.expires_at).toBe('2099-05-06T05:08:09.123456Z');
    });

    it('accepts ISO forms PostgreSQL does not read itself (year-month, date only)', async () => {
      expect((await create('month', {}, { expires_at: '2099-02' }).expect(201)).body.expires_at).toBe('2099-02-01T00:00:00.000000Z');
      expect((await create('day', {}, { expires_at: '2099-02-03' }).expect(201)).body.expires_at).toBe('2099-02-03T00:00:00.000000Z');
    });

    it('treats an expired document as deleted: 404, visible with deleted=true, out of lists, not writable', async () => {
      await create('exp', { a: 1 }, { ttl: 3600 }).expect(201);
      await create('live', { a: 2 }).expect(201);
      await expire('exp');
      await get('exp').expect(404);
      const withDeleted = await get('exp', '?deleted=true').expect(200);
      expect(withDeleted.body).toMatchObject({ key: 'exp', deleted_at: null, data: { a: 1 } });
      expect(Date.parse(withDeleted.body.expires_at)).toBeLessThan(Date.now());
      expect(await listKeys()).toEqual(['live']);
      expect(await listKeys('&deleted=true')).toEqual(['exp', 'live']);
      await put('exp', { a: 9 }).expect(404);
      await del('exp').expect(404);
      expect((await get('exp', '?deleted=true').expect(200)).body).toMatchObject({ version: 1, data: { a: 1 } });
    });

    it('create revives an expired document with the next version', async () => {
      await create('exp', { a: 1 }, { ttl: 60 }).expect(201);
      await expire('exp');
      const revived = await create('exp', { a: 2 }).expect(201);
      expect(revived.body).toMatchObject({ version: 2, data: { a: 2 }, expires_at: null, deleted_at: null });
      expect(revived.headers.etag).toBe('"2"');
      expect((await get('exp').expect(200)).body.version).toBe(2);
    });

    it('PUT replaces expires_at and clears it when absent', async () => {
      await create('p', { a: 1 }, { ttl: 600 }).expect(201);
      const withExpiry = await put('p', { a: 2 }, { expires_at: '2099-01-01T00:00:00Z' }).expect(200);
      expect(withExpiry.body.expires_at).toBe('2099-01-01T00:00:00.000000Z');
      const cleared = await put('p', { a: 3 }).expect(200);
      expect(cleared.body).toMatchObject({ version: 3, expires_at: null });
      expect((await get('p').expect(200)).body.expires_at).toBeNull();
    });

    it('PUT with both ttl and expires_at answers 422 and changes nothing', async () => {
      await create('p', { a: 1 }).expect(201);
      const res = await put('p', { a: 2 }, { ttl: 10, expires_at: '2099-01-01T00:00:00Z' }).expect(422);
      expect(res.body.errors).toHaveProperty('ttl');
      expect((await get('p').expect(200)).body).toMatchObject({ version: 1, data: { a: 1 }, expires_at: null });
    });
  });

  describe('update', () => {
    it('replaces data, increments version and keeps created_at', async () => {
      const created = await create('u', { a: 1, b: 2 }).expect(201);
      const updated = await put('u', { c: 3 }).expect(200);
      expect(updated.body).toMatchObject({ id: created.body.id, version: 2, data: { c: 3 }, created_at: created.body.created_at });
      expect(Date.parse(updated.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.updated_at));
      expect(updated.headers.etag).toBe('"2"');
      expect((await get('u').expect(200)).body).toEqual(updated.body);
    });

    it('answers 404 for a missing or deleted document', async () => {
      const res = await put('nope', { a: 1 }).expect(404);
      expect(res.body).toEqual({ message: expect.any(String) });
      await create('gone', { a: 1 }).expect(201);
      await del('gone').expect(200);
      await put('gone', { a: 2 }).expect(404);
      expect(await rowCount()).toBe(1);
    });

    it('honours If-Match: matching version and * succeed, others answer 412 without writing', async () => {
      await create('m', { a: 1 }).expect(201);
      const stale = await request(ds.http)
        .put(`${c.doc()}/m`)
        .set(c.auth)
        .set('If-Match', '"7"')
        .send(docBody('m', { a: 2 }))
        .expect(412);
      expect(stale.body).toEqual({ message: expect.any(String) });
      await request(ds.http)
        .put(`${c.doc()}/m`)
        .set(c.auth)
        .set('If-Match', 'garbage')
        .send(docBody('m', { a: 2 }))
        .expect(412);
      expect((await get('m').expect(200)).body).toMatchObject({ version: 1, data: { a: 1 } });
      await request(ds.http)
        .put(`${c.doc()}/m`)
        .set(c.auth)
        .set('If-Match', '"1"')
        .send(docBody('m', { a: 2 }))
        .expect(200);
      const star = await request(ds.http)
        .put(`${c.doc()}/m`)
        .set(c.auth)
        .set('If-Match', '*')
        .send(docBody('m', { a: 3 }))
        .expect(200);
      expect(star.body).toMatchObject({ version: 3, data: { a: 3 } });
    });

    it('If-Match on a missing document answers 404, not 412', async () => {
      await request(ds.http)
        .put(`${c.doc()}/none`)
        .set(c.auth)
        .set('If-Match', '"1"')
        .send(docBody('none', { a: 1 }))
        .expect(404);
    });

    it('answers 422 for invalid data and changes nothing', async () => {
      await create('v', { a: 1 }).expect(201);
      await put('v', ['x'] as unknown as Record<string, unknown>).expect(422);
      expect((await get('v').expect(200)).body).toMatchObject({ version: 1, data: { a: 1 } });
    });
  });

  describe('conditional GET', () => {
    it('answers 304 to If-None-Match naming the current version, 200 otherwise', async () => {
      await create('etag', { a: 1 }).expect(201);
      const notModified = await get('etag').set('If-None-Match', '"1"').expect(304);
      expect(notModified.text ?? '').toBe('');
      await get('etag').set('If-None-Match', '"2"').expect(200);
      await put('etag', { a: 2 }).expect(200);
      const changed = await get('etag').set('If-None-Match', '"1"').expect(200);
      expect(changed.headers.etag).toBe('"2"');
      expect(changed.body.data).toEqual({ a: 2 });
      await get('etag').set('If-None-Match', '"2"').expect(304);
    });
  });

  describe('delete', () => {
    it('soft-deletes: message, 404 afterwards, readable with deleted=true with deleted_at', async () => {
      await create('d', { a: 1 }).expect(201);
      const res = await del('d').expect(200);
      expect(res.body).toEqual({ message: 'Document deleted.' });
      await get('d').expect(404);
      await get('d', '?deleted=false').expect(404);
      const deleted = await get('d', '?deleted=true').expect(200);
      expect(deleted.body).toMatchObject({ key: 'd', data: { a: 1 }, version: 1 });
      expect(deleted.body.deleted_at).toMatch(TIMESTAMP);
      expect((await get('d', '?deleted=1').expect(200)).body.deleted_at).toBe(deleted.body.deleted_at);
      expect(await listKeys()).toEqual([]);
      expect(await listKeys('&deleted=true')).toEqual(['d']);
      await del('d').expect(404);
    });

    it('answers 422 for a deleted value other than true/false/1/0', async () => {
      await create('d', { a: 1 }).expect(201);
      const res = await get('d', '?deleted=yes').expect(422);
      expect(res.body.errors).toHaveProperty('deleted');
    });

    it('answers 404 for a missing document', async () => {
      expect((await del('never').expect(404)).body).toEqual({ message: expect.any(String) });
    });

    it('honours If-Match', async () => {
      await create('d', { a: 1 }).expect(201);
      await request(ds.http).delete(`${c.doc()}/d`).set(c.auth).set('If-Match', '"2"').expect(412);
      await get('d').expect(200);
      await request(ds.http).delete(`${c.doc()}/d`).set(c.auth).set('If-Match', '"1"').expect(200);
      await get('d').expect(404);
    });

    it('create revives a soft-deleted document with the next version, history continuing', async () => {
      await create('r', { a: 1 }).expect(201);
      await put('r', { a: 2 }).expect(200);
      await del('r').expect(200);
      const revived = await create('r', { a: 3 }, { ttl: 60 }).expect(201);
      expect(revived.body).toMatchObject({ version: 3, data: { a: 3 }, deleted_at: null });
      expect(revived.body.expires_at).toMatch(TIMESTAMP);
      expect((await get('r').expect(200)).body.version).toBe(3);
      const history = await request(ds.http).get(`${c.doc()}/r/history`).set(c.auth).expect(200);
      expect(history.body.data.map((h: { version: number }) => h.version)).toEqual([3, 2, 1]);
      expect(await rowCount()).toBe(1);
    });
  });

  describe('racing writes without If-Match', () => {
    it('five DELETEs, PUTs and POSTs on one live key: 200/404 for PUT and DELETE, 201/409 for POST, never 412', async () => {
      const seen = { put: new Set<number>(), delete: new Set<number>(), post: new Set<number>() };
      for (let round = 0; round < 15; round++) {
        const key = `race-${round}`;
        await create(key, { round }).expect(201);
        const racers = Array.from({ length: 5 }, (_, i) => [
          del(key).then((r) => ['delete', r.status] as const),
          put(key, { put: i }).then((r) => ['put', r.status] as const),
          create(key, { post: i }).then((r) => ['post', r.status] as const),
        ]).flat();
        for (const [method, status] of await Promise.all(racers)) seen[method].add(status);
      }
      const other = (statuses: Set<number>, allowed: number[]) => [...statuses].filter((s) => !allowed.includes(s));
      expect(other(seen.put, [200, 404])).toEqual([]);
      expect(other(seen.delete, [200, 404])).toEqual([]);
      expect(other(seen.post, [201, 409])).toEqual([]);
    });

    it('still answers 412 when If-Match names an older version', async () => {
      await create('k', { v: 1 }).expect(201);
      await put('k', { v: 2 }).expect(200);
      const res = await request(ds.http)
        .put(`${c.doc()}/k`)
        .set(c.auth)
        .set('If-Match', '"1"')
        .send(docBody('k', { v: 3 }))
        .expect(412);
      expect(res.body.message).toContain('version 2');
      await request(ds.http).delete(`${c.doc()}/k`).set(c.auth).set('If-Match', '"1"').expect(412);
    });
  });
});
