import { createHash, randomUUID } from 'node:crypto';
import { Sql } from '@app/database';
import { request, startDocstore, type Client, type Docstore } from './support/docstore-test';

const TOKEN_FORMAT = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\|([A-Za-z0-9]{40})$/;
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const future = (days = 30): string => new Date(Date.now() + days * 86_400_000).toISOString();

describe('tokens', () => {
  let ds: Docstore;
  let c: Client;
  const tokens = (): string => `/api/v1/client/${c.id}/tokens`;
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  function create(body: Record<string, unknown>) {
    return request(ds.http).post(tokens()).set(c.auth).send(body);
  }

  beforeAll(async () => {
    ds = await startDocstore();
  });
  afterAll(() => ds.close());
  beforeEach(async () => {
    c = await ds.newClient(['*']);
  });

  describe('create', () => {
    it('returns 201 with the one-time token and its details', async () => {
      const res = await create({ name: 'ci', scopes: ['document:read'] }).expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['message', 'token', 'token_details']);
      expect(res.body.message).toEqual(expect.any(String));
      const [, id] = TOKEN_FORMAT.exec(res.body.token) ?? [];
      expect(id).toBeDefined();
      expect(res.body.token_details).toEqual({
        id,
        client_id: c.id,
        name: 'ci',
        scopes: ['document:read'],
        status: 'active',
        expires_at: null,
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      });
    });

    it('stores only the SHA-256 of the secret', async () => {
      const res = await create({ name: 'hash', scopes: ['*'] }).expect(201);
      const [, id, secret] = TOKEN_FORMAT.exec(res.body.token)!;
      const [row] = await ds
        .get(Sql)
        .rows<{ secret_hash: Buffer; whole: string }>('select secret_hash, row_to_json(t)::text as whole from docstore.tokens t where id = $1', [id]);
      expect(row.secret_hash).toHaveLength(32);
      expect(row.secret_hash.equals(createHash('sha256').update(secret).digest())).toBe(true);
      expect(row.secret_hash.includes(secret)).toBe(false);
      expect(row.whole).not.toContain(secret);
    });

    it('issues a token that works with the scopes it was given', async () => {
      const res = await create({ name: 'reader', scopes: ['document:read'] }).expect(201);
      await request(ds.http).get(c.doc()).set(bearer(res.body.token)).expect(200);
      await request(ds.http).get(tokens()).set(bearer(res.body.token)).expect(403);
    });

    it('accepts granular scopes and a future expiry, and echoes them', async () => {
      const scopes = { permissions: ['document:read'], document_rules: [{ environment: 'staging', context: '*', permissions: ['document:create'] }] };
      const expiresAt = future();
      const res = await create({ name: 'granular', scopes, expires_at: expiresAt }).expect(201);
      expect(res.body.token_details.scopes).toEqual(scopes);
      expect(new Date(res.body.token_details.expires_at).getTime()).toBe(new Date(expiresAt).getTime());
      await request(ds.http).get(c.doc()).set(bearer(res.body.token)).expect(200);
    });

    it.each([
      ['an unknown scope', { name: 'x', scopes: ['document:write'] }, 'scopes'],
      ['scopes that are not a list', { name: 'x', scopes: 'document:read' }, 'scopes'],
      ['permissions that are not a list', { name: 'x', scopes: { permissions: 'document:read' } }, 'scopes'],
      ['a rule without context', { name: 'x', scopes: { permissions: [], document_rules: [{ environment: 'p', permissions: [] }] } }, 'scopes'],
      [
        'a rule with an unknown scope',
        { name: 'x', scopes: { permissions: [], document_rules: [{ environment: 'p', context: 'c', permissions: ['nope'] }] } },
        'scopes',
      ],
      ['missing scopes', { name: 'x' }, 'scopes'],
      ['a missing name', { scopes: ['*'] }, 'name'],
      ['an empty name', { name: '', scopes: ['*'] }, 'name'],
      ['an expiry in the past', { name: 'x', scopes: ['*'], expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
      ['an expiry that is not a date', { name: 'x', scopes: ['*'], expires_at: 'tomorrow' }, 'expires_at'],
      ['an unknown field', { name: 'x', scopes: ['*'], owner: 'me' }, 'owner'],
      ['an unknown scopes field named like a prototype member', { name: 'x', scopes: { permissions: [], valueOf: 0 } }, 'scopes.valueOf'],
    ])('refuses %s with 422', async (_, body, field) => {
      const res = await create(body).expect(422);
      expect(res.body).toEqual({ message: expect.any(String), errors: { [field]: expect.arrayContaining([expect.any(String)]) } });
      const list = await request(ds.http).get(tokens()).set(c.auth).expect(200);
      expect(list.body.total).toBe(1); // only the test's own token
    });
  });

  describe('list', () => {
    it('returns a paginated envelope of the client tokens only', async () => {
      await create({ name: 'a', scopes: ['document:read'] }).expect(201);
      await create({ name: 'b', scopes: ['document:read'] }).expect(201);
      await ds.newClient(); // another client's token must not appear
      const res = await request(ds.http).get(`${tokens()}?per_page=2&page=2`).set(c.auth).set('Host', 'docs.test').expect(200);
      expect(res.body).toMatchObject({
        current_page: 2,
        per_page: 2,
        total: 3,
        last_page: 2,
        from: 3,
        to: 3,
        path: `http://docs.test${tokens()}`,
        first_page_url: `http://docs.test${tokens()}?per_page=2&page=1`,
        prev_page_url: `http://docs.test${tokens()}?per_page=2&page=1`,
        next_page_url: null,
      });
      expect(res.body.data).toHaveLength(1);
      expect(res.body.data[0]).toMatchObject({ client_id: c.id, name: 'b', status: 'active' });
      expect(Object.keys(res.body.data[0]).sort()).toEqual([
        'client_id',
        'created_at',
        'expires_at',
        'id',
        'last_used_at',
        'name',
        'scopes',
        'status',
        'updated_at',
      ]);
      expect(res.body.data[0]).not.toHaveProperty('secret_hash');
    });

    it('hides revoked tokens', async () => {
      const made = await create({ name: 'gone', scopes: ['*'] }).expect(201);
      await request(ds.http).delete(`${tokens()}/${made.body.token_details.id}`).set(c.auth).expect(204);
      const res = await request(ds.http).get(tokens()).set(c.auth).expect(200);
      expect(res.body.total).toBe(1);
      expect(res.body.data.map((t: { id: string }) => t.id)).not.toContain(made.body.token_details.id);
    });

    it('shows last_used_at once the token has been used', async () => {
      const made = await create({ name: 'used', scopes: ['document:read'] }).expect(201);
      const find = async () =>
        (await request(ds.http).get(tokens()).set(c.auth).expect(200)).body.data.find((t: { id: string }) => t.id === made.body.token_details.id);
      expect((await find()).last_used_at).toBeNull();
      await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(200);
      expect((await find()).last_used_at).toMatch(TIMESTAMP);
    });

    it('refuses a bad per_page with 422', async () => {
      const res = await request(ds.http).get(`${tokens()}?per_page=101`).set(c.auth).expect(422);
      expect(res.body.errors).toEqual({ per_page: [expect.any(String)] });
    });
  });

  describe('update', () => {
    it('renames, rescopes and deactivates/reactivates a token', async () => {
      const made = await create({ name: 'old', scopes: ['document:read'] }).expect(201);
      const id = made.body.token_details.id;
      const url = `${tokens()}/${id}`;

      const renamed = await request(ds.http).put(url).set(c.auth).send({ name: 'new' }).expect(200);
      expect(renamed.body).toMatchObject({ id, name: 'new', scopes: ['document:read'], status: 'active' });
      expect(renamed.body).toHaveProperty('last_used_at');

      // the scope change applies at once (the verifier's cache is evicted)
      await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(200);
      const rescoped = await request(ds.http)
        .put(url)
        .set(c.auth)
        .send({ scopes: ['document:create'] })
        .expect(200);
      expect(rescoped.body).toMatchObject({ name: 'new', scopes: ['document:create'] });
      await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(403);

      const inactive = await request(ds.http)
        .put(url)
        .set(c.auth)
        .send({ status: 'inactive', scopes: ['document:read'] })
        .expect(200);
      expect(inactive.body.status).toBe('inactive');
      const denied = await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(401);
      expect(denied.body).toEqual({ error: 'Unauthorized', message: expect.any(String) });

      // inactive tokens are still listed and can be switched back on
      const listed = await request(ds.http).get(tokens()).set(c.auth).expect(200);
      expect(listed.body.data.find((t: { id: string }) => t.id === id)).toMatchObject({ status: 'inactive' });
      await request(ds.http).put(url).set(c.auth).send({ status: 'active' }).expect(200);
      await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(200);
    });

    it.each([
      ['status revoked', { status: 'revoked' }, 'status'],
      ['an unknown scope', { scopes: ['root'] }, 'scopes'],
      ['an empty name', { name: '' }, 'name'],
      ['an unknown field', { secret: 'x' }, 'secret'],
    ])('refuses %s with 422', async (_, body, field) => {
      const made = await create({ name: 'keep', scopes: ['document:read'] }).expect(201);
      const res = await request(ds.http).put(`${tokens()}/${made.body.token_details.id}`).set(c.auth).send(body).expect(422);
      expect(res.body.errors).toEqual({ [field]: [expect.any(String)] });
      await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(200);
    });
  });

  describe('a token grants only scopes it holds', () => {
    const as = (token: string) => ({
      create: (body: Record<string, unknown>) => request(ds.http).post(tokens()).set(bearer(token)).send(body),
      update: (id: string, body: Record<string, unknown>) => request(ds.http).put(`${tokens()}/${id}`).set(bearer(token)).send(body),
    });
    const tokenCount = async () => (await ds.get(Sql).one<{ n: number }>('SELECT count(*)::int AS n FROM docstore.tokens WHERE client_id = $1', [c.id]))!.n;

    it('a token:manage token cannot create a * token or one that reads documents (403 naming the scope)', async () => {
      const manager = as(await ds.mintToken(c.id, ['token:manage']));
      const before = await tokenCount();
      const star = await manager.create({ name: 'x', scopes: ['*'] }).expect(403);
      expect(star.body).toMatchObject({ error: 'Forbidden', message: expect.stringContaining('cannot grant *') });
      const read = await manager.create({ name: 'x', scopes: { permissions: ['token:manage', 'document:read'] } }).expect(403);
      expect(read.body.message).toContain('document:read');
      const rule = await manager
        .create({
          name: 'x',
          scopes: { permissions: [], document_rules: [{ environment: '*', context: '*', permissions: ['document:read'] }] },
        })
        .expect(403);
      expect(rule.body.message).toContain('document:read in */*');
      expect(await tokenCount()).toBe(before);
      await manager.create({ name: 'peer', scopes: ['token:manage'] }).expect(201);
    });

    it('a token cannot raise the scopes of a token it updates', async () => {
      const manager = as(await ds.mintToken(c.id, ['token:manage', 'document:read']));
      const made = await manager.create({ name: 'reader', scopes: ['document:read'] }).expect(201);
      const id = made.body.token_details.id;
      const res = await manager.update(id, { scopes: ['document:read', 'document:delete'] }).expect(403);
      expect(res.body.message).toContain('document:delete');
      const stored = await request(ds.http).get(tokens()).set(c.auth).expect(200);
      expect(stored.body.data.find((t: { id: string }) => t.id === id).scopes).toEqual(['document:read']);
      await manager.update(id, { scopes: ['token:manage'], name: 'renamed' }).expect(200);
    });

    it('document rules grant only within the environment and context the holder has', async () => {
      const scoped = as(
        await ds.mintToken(c.id, {
          permissions: ['token:manage'],
          document_rules: [{ environment: 'production', context: '*', permissions: ['document:read'] }],
        }),
      );
      const rule = (environment: string, context: string) => ({
        name: 'x',
        scopes: { permissions: [], document_rules: [{ environment, context, permissions: ['document:read'] }] },
      });
      await scoped.create(rule('production', 'shop')).expect(201);
      await scoped.create(rule('production', '*')).expect(201);
      const other = await scoped.create(rule('staging', 'shop')).expect(403);
      expect(other.body.message).toContain('document:read in staging/shop');
      await scoped.create({ name: 'x', scopes: ['document:read'] }).expect(403);
    });

    it('a * token can grant anything', async () => {
      const root = as(await ds.mintToken(c.id, ['*']));
      await root.create({ name: 'x', scopes: ['*'] }).expect(201);
    });
  });

  describe('revoke', () => {
    it('answers 204 and the token is refused at once', async () => {
      const made = await create({ name: 'doomed', scopes: ['*'] }).expect(201);
      await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(200); // now cached by the verifier
      const res = await request(ds.http).delete(`${tokens()}/${made.body.token_details.id}`).set(c.auth).expect(204);
      expect(res.text).toBe('');
      const denied = await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(401);
      expect(denied.body).toEqual({ error: 'Unauthorized', message: expect.any(String) });
    });

    it('can revoke the token making the request', async () => {
      await request(ds.http)
        .delete(`${tokens()}/${TOKEN_FORMAT.exec(c.token)![1]}`)
        .set(c.auth)
        .expect(204);
      await request(ds.http).get(tokens()).set(c.auth).expect(401);
    });
  });

  describe('unknown tokens', () => {
    it('answers 404 to PUT and DELETE on a revoked token', async () => {
      const made = await create({ name: 'doomed', scopes: ['*'] }).expect(201);
      const url = `${tokens()}/${made.body.token_details.id}`;
      await request(ds.http).delete(url).set(c.auth).expect(204);
      expect((await request(ds.http).put(url).set(c.auth).send({ status: 'active' }).expect(404)).body).toEqual({ message: expect.any(String) });
      await request(ds.http).delete(url).set(c.auth).expect(404);
      await request(ds.http).get(c.doc()).set(bearer(made.body.token)).expect(401);
    });

    it.each([
      ['an unknown id', randomUUID()],
      ['a non-UUID id', 'not-a-uuid'],
    ])('answers 404 for %s', async (_, id) => {
      const put = await request(ds.http).put(`${tokens()}/${id}`).set(c.auth).send({ name: 'x' }).expect(404);
      expect(put.body).toEqual({ message: expect.any(String) });
      await request(ds.http).delete(`${tokens()}/${id}`).set(c.auth).expect(404);
    });

    it("answers 404 for another client's token and leaves it alone", async () => {
      const other = await ds.newClient();
      const otherId = TOKEN_FORMAT.exec(other.token)![1];
      await request(ds.http).put(`${tokens()}/${otherId}`).set(c.auth).send({ status: 'inactive' }).expect(404);
      await request(ds.http).delete(`${tokens()}/${otherId}`).set(c.auth).expect(404);
      await request(ds.http).get(other.doc()).set(other.auth).expect(200);
    });
  });
});

describe('token expiry (no verifier cache)', () => {
  let ds: Docstore;

  beforeAll(async () => {
    ds = await startDocstore({ TOKEN_CACHE_TTL_SECONDS: '0' });
  });
  afterAll(() => ds.close());

  it('refuses a token once its expires_at has passed', async () => {
    const c = await ds.newClient(['*']);
    const made = await request(ds.http)
      .post(`/api/v1/client/${c.id}/tokens`)
      .set(c.auth)
      .send({ name: 'short', scopes: ['*'], expires_at: future(1) })
      .expect(201);
    const auth = { Authorization: `Bearer ${made.body.token}` };
    await request(ds.http).get(c.doc()).set(auth).expect(200);
    await ds.get(Sql).rows(`update docstore.tokens set expires_at = now() - interval '1 second' where id = $1`, [made.body.token_details.id]);
    const res = await request(ds.http).get(c.doc()).set(auth).expect(401);
    expect(res.body).toEqual({ error: 'Unauthorized', message: expect.any(String) });
    await request(ds.http).get(c.doc()).set(c.auth).expect(200);
  });
});
