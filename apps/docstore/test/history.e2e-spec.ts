import { Sql } from '@app/database';
import { docBody, request, type Client, type Docstore, useDocstore } from './support/docstore-test';

interface Entry {
  id: string;
  version: number;
  data: Record<string, unknown>;
}

describe('document history', () => {
  let ds: Docstore;
  let c: Client;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) });

  const create = (key: string, data: Record<string, unknown>) => request(ds.http).post(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, data)).expect(201);
  const put = (key: string, data: Record<string, unknown>) => request(ds.http).put(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, data)).expect(200);
  const history = (key: string, query = '') => request(ds.http).get(`${c.doc()}/${key}/history${query}`).set(c.auth);
  const restore = (key: string, id: string) => request(ds.http).post(`${c.doc()}/${key}/history/${id}/restore`).set(c.auth);
  const get = (key: string) => request(ds.http).get(`${c.doc()}/${key}`).set(c.auth);
  /** Creates `key` and updates it to versions 2 and 3; returns entries newest first. */
  const threeVersions = async (key: string): Promise<Entry[]> => {
    await create(key, { v: 1 });
    await put(key, { v: 2 });
    await put(key, { v: 3 });
    return (await history(key).expect(200)).body.data;
  };

  it('has one entry per version, newest first', async () => {
    const created = await create('h', { v: 1, name: 'first' });
    await put('h', { v: 2 });
    await put('h', { v: 3, nested: { deep: [1, 2] } });
    const res = await history('h').expect(200);
    expect(res.body.total).toBe(3);
    expect(res.body.data.map((e: Entry) => [e.version, e.data])).toEqual([
      [3, { v: 3, nested: { deep: [1, 2] } }],
      [2, { v: 2 }],
      [1, { v: 1, name: 'first' }],
    ]);
    const oldest = res.body.data[2];
    expect(Object.keys(oldest).sort()).toEqual(['client_id', 'context', 'created_at', 'data', 'environment', 'id', 'key', 'type', 'version']);
    expect(oldest).toMatchObject({
      client_id: c.id,
      environment: 'production',
      context: 'shop',
      type: 'product',
      key: 'h',
      created_at: created.body.created_at,
    });
    expect(oldest.id).toMatch(/^[1-9]\d*$/);
    expect(new Set(res.body.data.map((e: Entry) => e.id)).size).toBe(3);
  });

  it('is paginated with the list envelope', async () => {
    await threeVersions('p');
    const res = await history('p', '?per_page=2').set('Host', 'h.test').expect(200);
    const path = `http://h.test${c.doc()}/p/history`;
    expect(res.body).toEqual({
      current_page: 1,
      data: [expect.objectContaining({ version: 3 }), expect.objectContaining({ version: 2 })],
      first_page_url: `${path}?per_page=2&page=1`,
      from: 1,
      last_page: 2,
      last_page_url: `${path}?per_page=2&page=2`,
      links: [
        { url: null, label: '&laquo; Previous', active: false },
        { url: `${path}?per_page=2&page=1`, label: '1', active: true },
        { url: `${path}?per_page=2&page=2`, label: '2', active: false },
        { url: `${path}?per_page=2&page=2`, label: 'Next &raquo;', active: false },
      ],
      next_page_url: `${path}?per_page=2&page=2`,
      path,
      per_page: 2,
      prev_page_url: null,
      to: 2,
      total: 3,
    });
    const second = await history('p', '?per_page=2&page=2').expect(200);
    expect(second.body).toMatchObject({ current_page: 2, from: 3, to: 3, next_page_url: null });
    expect(second.body.data.map((e: Entry) => e.version)).toEqual([1]);
    expect((await history('p', '?per_page=0').expect(422)).body.errors).toHaveProperty(['per_page']);
  });

  it('answers 404 for a key with no document, also in another collection', async () => {
    expect((await history('nothing').expect(404)).body).toEqual({ message: expect.any(String) });
    await create('here', { v: 1 });
    await request(ds.http)
      .get(`${c.doc('production', 'shop', 'order')}/here/history`)
      .set(c.auth)
      .expect(404);
  });

  it('is readable for a soft-deleted document', async () => {
    await create('d', { v: 1 });
    await request(ds.http).delete(`${c.doc()}/d`).set(c.auth).expect(200);
    const res = await history('d').expect(200);
    expect(res.body.data.map((e: Entry) => e.version)).toEqual([1]);
  });

  it('restores an entry as a new version and records it', async () => {
    const entries = await threeVersions('r');
    const v1 = entries.find((e) => e.version === 1)!;
    const res = await restore('r', v1.id).expect(200);
    expect(res.body).toMatchObject({ key: 'r', version: 4, data: { v: 1 }, deleted_at: null });
    expect(res.headers.etag).toBe('"4"');
    expect((await get('r').expect(200)).body).toEqual(res.body);
    const after = await history('r').expect(200);
    expect(after.body.total).toBe(4);
    expect(after.body.data[0]).toMatchObject({ version: 4, data: { v: 1 } });
    expect(after.body.data[0].id).not.toBe(v1.id);
  });

  it('restore brings a soft-deleted document back', async () => {
    const entries = await threeVersions('gone');
    await request(ds.http).delete(`${c.doc()}/gone`).set(c.auth).expect(200);
    await get('gone').expect(404);
    const res = await restore('gone', entries[1].id).expect(200);
    expect(res.body).toMatchObject({ version: 4, data: { v: 2 }, deleted_at: null });
    expect((await get('gone').expect(200)).body.version).toBe(4);
  });

  it('restore brings an expired document back without its past expiry', async () => {
    const entries = await threeVersions('old');
    await ds.get(Sql).rows(`UPDATE docstore.documents SET expires_at = now() - interval '1 second' WHERE key = 'old' AND client_id = $1`, [c.id]);
    await get('old').expect(404);
    const res = await restore('old', entries[2].id).expect(200);
    expect(res.body).toMatchObject({ version: 4, data: { v: 1 }, expires_at: null, deleted_at: null });
    await get('old').expect(200);
  });

  it('answers 404 for an entry of another document, changing nothing', async () => {
    await create('mine', { v: 1 });
    const theirs = await threeVersions('theirs');
    const res = await restore('mine', theirs[2].id).expect(404);
    expect(res.body).toEqual({ message: expect.any(String) });
    expect((await get('mine').expect(200)).body).toMatchObject({ version: 1, data: { v: 1 } });
    expect((await history('mine').expect(200)).body.total).toBe(1);
  });

  it('answers 404 for an entry of another client', async () => {
    const other = await ds.newClient();
    await request(ds.http)
      .post(`${other.doc()}/k`)
      .set(other.auth)
      .send(docBody('k', { secret: true }))
      .expect(201);
    const otherEntry = (await request(ds.http).get(`${other.doc()}/k/history`).set(other.auth).expect(200)).body.data[0];
    await create('k', { v: 1 });
    await restore('k', otherEntry.id).expect(404);
    expect((await get('k').expect(200)).body.data).toEqual({ v: 1 });
  });

  it('answers 404 for an unknown entry or a missing document', async () => {
    const entries = await threeVersions('u');
    expect((await restore('u', '999999999999').expect(404)).body).toEqual({ message: expect.any(String) });
    await restore('missing', entries[0].id).expect(404);
  });

  it.each([['abc'], ['0'], ['-1'], ['1.5']])('answers 422 for history_id %s', async (id) => {
    await create('x', { v: 1 });
    const res = await restore('x', id).expect(422);
    expect(res.body).toEqual({ message: expect.any(String), errors: { history_id: [expect.any(String)] } });
  });

  it('answers 422 when the entry fails the current schema, changing nothing', async () => {
    await create('s', { name: 'no price' });
    await request(ds.http)
      .post(`${c.doc()}/schema`)
      .set(c.auth)
      .send({ schema: { type: 'object', required: ['price'], properties: { price: { type: 'number' } } } })
      .expect(201);
    await put('s', { name: 'priced', price: 5 });
    const entries: Entry[] = (await history('s').expect(200)).body.data;
    const res = await restore('s', entries[1].id).expect(422);
    expect(res.body).toEqual({ message: expect.any(String), errors: [{ property: 'price', message: expect.any(String) }] });
    expect((await get('s').expect(200)).body).toMatchObject({ version: 2, data: { name: 'priced', price: 5 } });
    expect((await history('s').expect(200)).body.total).toBe(2);
  });

  it('honours If-Match', async () => {
    const entries = await threeVersions('m');
    const stale = await restore('m', entries[2].id).set('If-Match', '"2"').expect(412);
    expect(stale.body).toEqual({ message: expect.any(String) });
    expect((await get('m').expect(200)).body.version).toBe(3);
    const ok = await restore('m', entries[2].id).set('If-Match', '"3"').expect(200);
    expect(ok.body).toMatchObject({ version: 4, data: { v: 1 } });
    await restore('m', entries[1].id).set('If-Match', '*').expect(200);
  });

  it('needs document:update to restore and document:read to list', async () => {
    const entries = await threeVersions('scoped');
    const readOnly = { Authorization: `Bearer ${await ds.mintToken(c.id, ['document:read'])}` };
    await request(ds.http).get(`${c.doc()}/scoped/history`).set(readOnly).expect(200);
    const denied = await request(ds.http).post(`${c.doc()}/scoped/history/${entries[2].id}/restore`).set(readOnly).expect(403);
    expect(denied.body.message).toContain('document:update');
    const updateOnly = { Authorization: `Bearer ${await ds.mintToken(c.id, ['document:update'])}` };
    await request(ds.http).get(`${c.doc()}/scoped/history`).set(updateOnly).expect(403);
    expect((await get('scoped').expect(200)).body.version).toBe(3);
  });
});
