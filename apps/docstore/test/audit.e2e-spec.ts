import type { AuditRecordDto } from '@app/audit';
import { Pruner, Sql } from '@app/database';
import { schemaText, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import fc from 'fast-check';
import { request, startDocstore, type Client, type Docstore } from './support/docstore-test';

const SCHEMA = { type: 'object', properties: { price: { type: 'number' } } };

describe('audit log', () => {
  let ds: Docstore;
  let c: Client;
  let receiver: WebhookReceiver;
  const audit = (client = c) => `/api/v1/client/${client.id}/audit`;
  const records = async (query = ''): Promise<AuditRecordDto[]> => (await request(ds.http).get(`${audit()}${query}`).set(c.auth).expect(200)).body.data;
  const count = async (): Promise<number> => (await request(ds.http).get(audit()).set(c.auth).expect(200)).body.total;
  const tokenId = (plain: string) => plain.split('|')[0];

  beforeAll(async () => {
    ds = await startDocstore({ WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', TRUST_PROXY: 'loopback' });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await ds.close();
  });
  beforeEach(async () => {
    c = await ds.newClient(['*']);
  });

  it('records token creation, update and revocation with who, where and the changed fields', async () => {
    const created = await request(ds.http)
      .post(`/api/v1/client/${c.id}/tokens`)
      .set(c.auth)
      .set('X-Forwarded-For', '203.0.113.7')
      .send({ name: 'ci', scopes: ['document:read'] })
      .expect(201);
    const id = created.body.token_details.id;
    await request(ds.http).put(`/api/v1/client/${c.id}/tokens/${id}`).set(c.auth).send({ name: 'ci-2' }).expect(200);
    await request(ds.http).delete(`/api/v1/client/${c.id}/tokens/${id}`).set(c.auth).expect(204);

    const [revoked, updated, made] = await records('?action=token.revoked').then(async (r) => [r[0], ...(await records()).slice(1, 3)]);
    expect(made).toMatchObject({
      action: 'token.created',
      target_type: 'token',
      target_id: id,
      actor: { credential_id: tokenId(c.token), name: 'test', ip: '203.0.113.7' },
      before: null,
      after: { name: 'ci', scopes: ['document:read'], status: 'active', expires_at: null },
    });
    expect(updated).toMatchObject({ action: 'token.updated', before: { name: 'ci' }, after: { name: 'ci-2' } });
    expect(revoked).toMatchObject({ action: 'token.revoked', target_id: id, before: { status: 'active' }, after: { status: 'revoked' } });
    // The client's own token, minted by the test kit as the command line does, opens the log.
    expect((await records()).at(-1)).toMatchObject({ action: 'token.created', actor: { credential_id: 'cli', name: 'cli', ip: null } });
  });

  it('records nothing for a change that fails', async () => {
    const before = await count();
    const limited = await ds.mintToken(c.id, ['token:manage']);
    await request(ds.http)
      .post(`/api/v1/client/${c.id}/tokens`)
      .set({ Authorization: `Bearer ${limited}` })
      .send({ name: 'x', scopes: ['document:read'] })
      .expect(403);
    await request(ds.http)
      .put(`/api/v1/client/${c.id}/tokens/${tokenId(limited)}`)
      .set({ Authorization: `Bearer ${limited}` })
      .send({ scopes: ['document:read'] })
      .expect(403);
    await request(ds.http).delete(`/api/v1/client/${c.id}/tokens/00000000-0000-4000-8000-000000000000`).set(c.auth).expect(404);
    const hook = await request(ds.http)
      .post(`/api/v1/client/${c.id}/webhooks`)
      .set(c.auth)
      .send({ url: receiver.url, events: ['document.created'] })
      .expect(201);
    await request(ds.http)
      .post(`/api/v1/client/${c.id}/webhooks`)
      .set(c.auth)
      .send({ url: receiver.url, events: ['document.created'] })
      .expect(409);
    await request(ds.http)
      .post(`${c.doc()}/schema`)
      .set(c.auth)
      .send({ schema: { type: 'nonsense' } })
      .expect(422);
    await request(ds.http).delete(`${c.doc()}/schema`).set(c.auth).expect(404);
    // The limited token (minted: +1) and the one webhook that was created (+1): nothing else.
    expect(await count()).toBe(before + 2);
    expect((await records())[0]).toMatchObject({ action: 'webhook.created', target_id: hook.body.id });
  });

  it('rolls the change back when its record cannot be written, and the record with it', async () => {
    const sql = ds.get(Sql);
    const before = await count();
    // A record that cannot be written (the check refuses it) fails the change's transaction.
    await sql.rows(`ALTER TABLE docstore.audit_log ADD CONSTRAINT audit_test_refuse CHECK (action <> 'token.created') NOT VALID`);
    try {
      await request(ds.http)
        .post(`/api/v1/client/${c.id}/tokens`)
        .set(c.auth)
        .send({ name: 'orphan', scopes: ['document:read'] })
        .expect(500);
    } finally {
      await sql.rows(`ALTER TABLE docstore.audit_log DROP CONSTRAINT audit_test_refuse`);
    }
    const orphans = await sql.rows(`SELECT id FROM docstore.tokens WHERE client_id = $1 AND name = 'orphan'`, [c.id]);
    expect(orphans).toEqual([]);
    expect(await count()).toBe(before);
  });

  it('records webhook creation, change, rotation and deletion, never a secret', async () => {
    const hook = await request(ds.http)
      .post(`/api/v1/client/${c.id}/webhooks`)
      .set(c.auth)
      .send({ url: receiver.url, events: ['document.created'] })
      .expect(201);
    const id = hook.body.id;
    await request(ds.http)
      .put(`/api/v1/client/${c.id}/webhooks/${id}`)
      .set(c.auth)
      .send({ events: ['document.created', 'document.deleted'] })
      .expect(200);
    const rotated = await request(ds.http).post(`/api/v1/client/${c.id}/webhooks/${id}/rotate-secret`).set(c.auth).expect(200);
    await request(ds.http).delete(`/api/v1/client/${c.id}/webhooks/${id}`).set(c.auth).expect(204);

    const [deleted, rotation, change, creation] = await records();
    expect(creation).toMatchObject({
      action: 'webhook.created',
      target_id: id,
      before: null,
      after: { url: receiver.url, events: ['document.created'], status: 'active', headers: {} },
    });
    expect(change).toMatchObject({
      action: 'webhook.updated',
      before: { events: ['document.created'] },
      after: { events: ['document.created', 'document.deleted'] },
    });
    expect(rotation).toMatchObject({ action: 'webhook.rotated', before: { secret: '***' }, after: { secret: '***' } });
    expect(deleted).toMatchObject({ action: 'webhook.deleted', before: { url: receiver.url }, after: null });

    const secrets = [hook.body.secret, rotated.body.secret, c.token.split('|')[1]];
    const rows = JSON.stringify(await ds.get(Sql).rows(`SELECT * FROM docstore.audit_log`));
    const dump = await schemaText(ds.get(Sql), 'docstore', [...secrets, id]);
    for (const secret of secrets) {
      expect(rows).not.toContain(secret);
      expect(dump).not.toContain(secret);
    }
    expect(dump).toContain(id);
  });

  it('records schemas set, replaced and removed', async () => {
    await request(ds.http).post(`${c.doc()}/schema`).set(c.auth).send({ schema: SCHEMA }).expect(201);
    const replaced = { ...SCHEMA, required: ['price'] };
    await request(ds.http).post(`${c.doc()}/schema`).set(c.auth).send({ schema: replaced }).expect(200);
    await request(ds.http).delete(`${c.doc()}/schema`).set(c.auth).expect(204);
    const [removed, second, first] = await records();
    expect(first).toMatchObject({ action: 'schema.set', target_type: 'schema', target_id: 'production/shop/product', before: null, after: { schema: SCHEMA } });
    expect(second).toMatchObject({ action: 'schema.set', before: { schema: SCHEMA }, after: { schema: replaced } });
    expect(removed).toMatchObject({ action: 'schema.removed', before: { schema: replaced }, after: null });
  });

  it("shows a client only its own records, and refuses another client's log", async () => {
    await request(ds.http)
      .post(`/api/v1/client/${c.id}/tokens`)
      .set(c.auth)
      .send({ name: 'mine', scopes: ['document:read'] })
      .expect(201);
    const other = await ds.newClient(['*']);
    const theirs = await request(ds.http).get(audit(other)).set(other.auth).expect(200);
    expect(theirs.body.data).toHaveLength(1);
    expect(JSON.stringify(theirs.body.data)).not.toContain('mine');
    await request(ds.http).get(audit()).set(other.auth).expect(403);
    const reader = await ds.mintToken(c.id, ['document:read']);
    await request(ds.http)
      .get(audit())
      .set({ Authorization: `Bearer ${reader}` })
      .expect(403);
  });

  it('filters by action and time, newest first, in pages', async () => {
    for (const name of ['a', 'b', 'c']) {
      await request(ds.http)
        .post(`/api/v1/client/${c.id}/tokens`)
        .set(c.auth)
        .send({ name, scopes: ['document:read'] })
        .expect(201);
    }
    const all = await records('?action=token.created');
    expect(all.map((r) => r.after?.name)).toEqual(['c', 'b', 'a', 'test']);
    const page = await request(ds.http).get(`${audit()}?per_page=2&page=2`).set(c.auth).expect(200);
    expect(page.body.data.map((r: AuditRecordDto) => r.after?.name)).toEqual(['a', 'test']);
    expect(await records(`?from=${encodeURIComponent(all[1].at)}`)).toHaveLength(2);
    expect(await records(`?to=${encodeURIComponent(all[1].at)}`)).toHaveLength(2);
    expect(await records('?action=webhook.deleted')).toEqual([]);
  });

  it('answers any query with 200 or a 422 naming the field, never more', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom('token.created', '0', '-1', '9999-12-31T23:59:59Z'),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('action', 'from', 'to', 'page', 'per_page', 'other'), value, { maxKeys: 4 }), async (query) => {
        const res = await request(ds.http).get(audit()).query(query).set(c.auth);
        expect([200, 422]).toContain(res.status);
        if (res.status === 422) expect(Object.keys(res.body.errors ?? {}).length).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });

  it('deletes records older than AUDIT_RETENTION_DAYS with the pruner, and keeps the rest', async () => {
    const sql = ds.get(Sql);
    await sql.rows(
      `INSERT INTO docstore.audit_log (tenant_id, actor_id, action, target_type, target_id, at)
       VALUES ($1, 'cli', 'token.created', 'token', 'old', now() - interval '366 days'), ($1, 'cli', 'token.created', 'token', 'recent', now() - interval '364 days')`,
      [c.id],
    );
    await ds.get(Pruner).pruneAll();
    const kept = await sql.rows<{ target_id: string }>(`SELECT target_id FROM docstore.audit_log WHERE tenant_id = $1 AND target_id IN ('old', 'recent')`, [
      c.id,
    ]);
    expect(kept).toEqual([{ target_id: 'recent' }]);
  });

  it('has no route that alters a record', async () => {
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const res = await request(ds.http)[method](audit()).set(c.auth).send({});
      expect([404, 405]).toContain(res.status);
    }
  });
});
