import { randomUUID } from 'node:crypto';
import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';
import type { TokenScopes } from '../src/tokens/token-scopes';

const UNAUTHORIZED = { error: 'Unauthorized', message: expect.any(String) };

describe('authentication and scopes', () => {
  let ds: Docstore;
  let c: Client;
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  beforeAll(async () => {
    ds = await startDocstore();
  });
  afterAll(() => ds.close());
  beforeEach(async () => {
    c = await ds.newClient();
  });

  describe('credentials', () => {
    it('accepts Authorization: Bearer <id>|<secret>', async () => {
      await request(ds.http).get(c.doc()).set('Authorization', `Bearer ${c.token}`).expect(200);
      await request(ds.http).get(c.doc()).set('Authorization', `bearer  ${c.token}`).expect(200);
    });

    it('accepts X-Client-Key and X-Client-Token', async () => {
      const [id, secret] = c.token.split('|');
      await request(ds.http).get(c.doc()).set('X-Client-Key', id).set('X-Client-Token', secret).expect(200);
    });

    it('answers 401 without credentials', async () => {
      const res = await request(ds.http).get(c.doc()).expect(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    });

    it.each([
      ['a garbled bearer', () => ({ Authorization: 'Bearer garbage' })],
      ['an empty secret', () => ({ Authorization: `Bearer ${randomUUID()}|` })],
      ['another scheme', (t: string) => ({ Authorization: `Basic ${Buffer.from(t).toString('base64')}` })],
      ['a bare token without scheme', (t: string) => ({ Authorization: t })],
      ['a wrong secret', (t: string) => ({ Authorization: `Bearer ${t.split('|')[0]}|${'A'.repeat(40)}` })],
      ['the secret with one character changed', (t: string) => ({ Authorization: `Bearer ${t.slice(0, -1)}${t.endsWith('a') ? 'b' : 'a'}` })],
      ['an unknown token id', (t: string) => ({ Authorization: `Bearer ${randomUUID()}|${t.split('|')[1]}` })],
      ['a non-UUID token id', (t: string) => ({ Authorization: `Bearer 42|${t.split('|')[1]}` })],
      ['X-Client-Key without X-Client-Token', (t: string) => ({ 'X-Client-Key': t.split('|')[0] })],
      ['X-Client-Key with a wrong X-Client-Token', (t: string) => ({ 'X-Client-Key': t.split('|')[0], 'X-Client-Token': 'nope' })],
    ])('answers 401 to %s', async (_, headers) => {
      const res = await request(ds.http).get(c.doc()).set(headers(c.token)).expect(401);
      expect(res.body).toEqual(UNAUTHORIZED);
    });

    it('authenticates before anything else: 401 on a non-UUID client path', async () => {
      expect((await request(ds.http).get('/api/v1/client/nope/tokens').expect(401)).body).toEqual(UNAUTHORIZED);
    });
  });

  describe('client in the path', () => {
    it("answers 403 on another client's path even with every scope", async () => {
      const other = await ds.newClient();
      const all = await ds.mintToken(c.id, ['*']);
      for (const url of [other.doc(), `${other.doc()}/k`, `${other.doc()}/schema`, `/api/v1/client/${other.id}/tokens`]) {
        const res = await request(ds.http).get(url).set(bearer(all)).expect(403);
        expect(res.body).toEqual({ error: 'Forbidden', message: expect.any(String) });
      }
      await request(ds.http).post(`${other.doc()}/k`).set(bearer(all)).send(docBody('k', {})).expect(403);
      await request(ds.http).get(`${other.doc()}/k`).set(other.auth).expect(404); // nothing was written
    });

    it('answers 400 when the client is not a UUID', async () => {
      const res = await request(ds.http).get('/api/v1/client/not-a-uuid/production/context/shop/type/product').set(c.auth).expect(400);
      expect(res.body).toEqual({ message: expect.any(String) });
      await request(ds.http).get('/api/v1/client/not-a-uuid/tokens').set(c.auth).expect(400);
    });

    it('accepts the client id in upper case', async () => {
      await request(ds.http).get(c.doc().replace(c.id, c.id.toUpperCase())).set(c.auth).expect(200);
    });
  });

  describe('required scopes', () => {
    type Call = (cl: Client, token: string) => request.Test;
    const h = bearer;
    const families: Array<[string, string, Call]> = [
      [
        'document create',
        'document:create',
        (cl, t) =>
          request(ds.http)
            .post(`${cl.doc()}/k`)
            .set(h(t))
            .send(docBody('k', { a: 1 })),
      ],
      ['document read', 'document:read', (cl, t) => request(ds.http).get(`${cl.doc()}/k`).set(h(t))],
      ['document list', 'document:read', (cl, t) => request(ds.http).get(cl.doc()).set(h(t))],
      ['document history', 'document:read', (cl, t) => request(ds.http).get(`${cl.doc()}/k/history`).set(h(t))],
      [
        'document update',
        'document:update',
        (cl, t) =>
          request(ds.http)
            .put(`${cl.doc()}/k`)
            .set(h(t))
            .send(docBody('k', { a: 2 })),
      ],
      ['history restore', 'document:update', (cl, t) => request(ds.http).post(`${cl.doc()}/k/history/1/restore`).set(h(t))],
      ['document delete', 'document:delete', (cl, t) => request(ds.http).delete(`${cl.doc()}/k`).set(h(t))],
      [
        'schema create',
        'schema:manage',
        (cl, t) =>
          request(ds.http)
            .post(`${cl.doc()}/schema`)
            .set(h(t))
            .send({ schema: { type: 'object' } }),
      ],
      ['schema read', 'schema:manage', (cl, t) => request(ds.http).get(`${cl.doc()}/schema`).set(h(t))],
      ['schema delete', 'schema:manage', (cl, t) => request(ds.http).delete(`${cl.doc()}/schema`).set(h(t))],
      ['token list', 'token:manage', (cl, t) => request(ds.http).get(`/api/v1/client/${cl.id}/tokens`).set(h(t))],
      [
        'token create',
        'token:manage',
        (cl, t) =>
          request(ds.http)
            .post(`/api/v1/client/${cl.id}/tokens`)
            .set(h(t))
            .send({ name: 'x', scopes: ['token:manage'] }),
      ],
      ['token update', 'token:manage', (cl, t) => request(ds.http).put(`/api/v1/client/${cl.id}/tokens/${randomUUID()}`).set(h(t)).send({ name: 'x' })],
      ['token revoke', 'token:manage', (cl, t) => request(ds.http).delete(`/api/v1/client/${cl.id}/tokens/${randomUUID()}`).set(h(t))],
    ];
    const others = (scope: string): string[] =>
      ['document:create', 'document:read', 'document:update', 'document:delete', 'token:manage', 'schema:manage', 'webhook:manage'].filter((s) => s !== scope);

    it.each(families)('%s needs %s', async (_, scope, call) => {
      const without = await ds.mintToken(c.id, others(scope));
      const res = await call(c, without).expect(403);
      expect(res.body).toEqual({ error: 'Forbidden', message: expect.stringContaining(scope) });

      // with just that scope the request gets past the guard
      const only = await ds.mintToken(c.id, [scope]);
      const ok = await call(c, only);
      expect([200, 201, 204, 404]).toContain(ok.status);
    });

    it('bulk needs both document:create and document:update', async () => {
      const body = { documents: [{ key: 'b1', data: { a: 1 } }] };
      const createOnly = await ds.mintToken(c.id, ['document:create']);
      const updateOnly = await ds.mintToken(c.id, ['document:update']);
      const both = await ds.mintToken(c.id, ['document:create', 'document:update']);
      const r1 = await request(ds.http).post(`${c.doc()}/bulk`).set(bearer(createOnly)).send(body).expect(403);
      expect(r1.body.message).toContain('document:update');
      const r2 = await request(ds.http).post(`${c.doc()}/bulk`).set(bearer(updateOnly)).send(body).expect(403);
      expect(r2.body.message).toContain('document:create');
      await request(ds.http).post(`${c.doc()}/bulk`).set(bearer(both)).send(body).expect(200);
    });

    it("'*' grants every scope", async () => {
      const star = await ds.mintToken(c.id, ['*']);
      await request(ds.http).post(`${c.doc()}/k`).set(bearer(star)).send(docBody('k', {})).expect(201);
      await request(ds.http).delete(`${c.doc()}/k`).set(bearer(star)).expect(200);
      await request(ds.http).get(`/api/v1/client/${c.id}/tokens`).set(bearer(star)).expect(200);
    });
  });

  describe('granular scopes', () => {
    const grant = async (scopes: TokenScopes) => bearer(await ds.mintToken(c.id, scopes));

    it('applies permissions on every route', async () => {
      const auth = await grant({ permissions: ['document:read', 'token:manage'] });
      await request(ds.http)
        .get(c.doc('staging', 'blog', 'post'))
        .set(auth)
        .expect(200);
      await request(ds.http).get(c.doc()).set(auth).expect(200);
      await request(ds.http).get(`/api/v1/client/${c.id}/tokens`).set(auth).expect(200);
      await request(ds.http).post(`${c.doc()}/k`).set(auth).send(docBody('k', {})).expect(403);
    });

    it('grants a rule’s permissions only where environment and context match', async () => {
      const auth = await grant({
        permissions: [],
        document_rules: [{ environment: 'production', context: 'shop', permissions: ['document:create', 'document:read'] }],
      });
      await request(ds.http)
        .post(`${c.doc()}/k`)
        .set(auth)
        .send(docBody('k', { a: 1 }))
        .expect(201);
      await request(ds.http)
        .get(`${c.doc('production', 'shop', 'other-type')}`)
        .set(auth)
        .expect(200); // type is not part of a rule
      await request(ds.http).get(c.doc('staging', 'shop')).set(auth).expect(403);
      await request(ds.http).get(c.doc('production', 'blog')).set(auth).expect(403);
      await request(ds.http).delete(`${c.doc()}/k`).set(auth).expect(403);
    });

    it("matches any environment or context with '*'", async () => {
      const auth = await grant({
        permissions: [],
        document_rules: [
          { environment: '*', context: 'shop', permissions: ['document:read'] },
          { environment: 'staging', context: '*', permissions: ['*'] },
        ],
      });
      await request(ds.http).get(c.doc('production', 'shop')).set(auth).expect(200);
      await request(ds.http).get(c.doc('dev', 'shop')).set(auth).expect(200);
      await request(ds.http).get(c.doc('production', 'blog')).set(auth).expect(403);
      await request(ds.http)
        .post(`${c.doc('staging', 'blog')}/k`)
        .set(auth)
        .send(docBody('k', {}, {}, 'staging', 'blog'))
        .expect(201);
      await request(ds.http)
        .post(`${c.doc('staging', 'blog')}/schema`)
        .set(auth)
        .send({ schema: { type: 'object' } })
        .expect(201);
      await request(ds.http)
        .post(`${c.doc('production', 'shop')}/schema`)
        .set(auth)
        .send({ schema: { type: 'object' } })
        .expect(403);
    });

    it('does not let a rule for another environment grant anything', async () => {
      const auth = await grant({
        permissions: ['document:read'],
        document_rules: [{ environment: 'staging', context: 'shop', permissions: ['document:create'] }],
      });
      const res = await request(ds.http)
        .post(`${c.doc('production', 'shop')}/k`)
        .set(auth)
        .send(docBody('k', {}))
        .expect(403);
      expect(res.body.message).toContain('document:create');
    });

    it('never grants token:manage through a rule (token paths name no environment or context)', async () => {
      const auth = await grant({ permissions: [], document_rules: [{ environment: '*', context: '*', permissions: ['*', 'token:manage'] }] });
      const res = await request(ds.http).get(`/api/v1/client/${c.id}/tokens`).set(auth).expect(403);
      expect(res.body.message).toContain('token:manage');
      await request(ds.http)
        .post(`/api/v1/client/${c.id}/tokens`)
        .set(auth)
        .send({ name: 'x', scopes: ['*'] })
        .expect(403);
      await request(ds.http).get(c.doc()).set(auth).expect(200);
    });
  });
});
