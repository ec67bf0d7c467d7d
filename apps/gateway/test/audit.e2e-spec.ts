import type { AuditRecordDto } from '@app/audit';
import { Sql } from '@app/database';
import { schemaText } from '@app/testkit';
import fc from 'fast-check';
import { NETWORK, request, startGateway, type Gateway, type Phone } from './support/gateway-test';

const WA_ID = '5511987654321';

describe('audit log (gateway)', () => {
  let gw: Gateway;
  let phone: Phone;
  const records = async (query = '', p: Phone = phone): Promise<AuditRecordDto[]> =>
    (await request(gw.http).get(`/api/Audit${query}`).set(p.headers).expect(200)).body.data;
  const keyId = (key: string) => key.split('_')[1];
  const hook = { types: ['messages'], endpoint: 'https://127.0.0.1:9/hook', headers: { Authorization: 'Bearer receiver-token', 'X-Shop': 'shop-42' } };

  beforeAll(async () => {
    gw = await startGateway({ WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => gw.close());
  beforeEach(async () => {
    phone = await gw.newPhone({ accessToken: 'access-token-secret-value' });
  });

  it('records the key issued by the command line, with no secret', async () => {
    const [issued] = await records();
    expect(issued).toMatchObject({
      action: 'api_key.created',
      target_type: 'api_key',
      target_id: keyId(phone.key),
      actor: { credential_id: 'cli', name: 'cli', ip: null },
      before: null,
      after: { name: 'test', phone: phone.phone, phone_id: phone.phoneId, access_token: '***' },
    });
  });

  it('records webhooks created, changed and deleted with the key and its address; header values never', async () => {
    const created = await request(gw.http).post('/api/Webhooks/').set(phone.headers).set('X-Forwarded-For', '198.51.100.4').send(hook).expect(201);
    await request(gw.http)
      .put(`/api/Webhooks/${created.body.id}`)
      .set(phone.headers)
      .send({ types: ['messages', 'user_preferences'] })
      .expect(200);
    await request(gw.http).delete(`/api/Webhooks/${created.body.id}`).set(phone.headers).expect(204);
    const [deleted, changed, made] = await records();
    expect(made).toMatchObject({
      action: 'webhook.created',
      target_id: created.body.id,
      actor: { credential_id: keyId(phone.key), name: 'test', ip: '198.51.100.4' },
      after: { url: hook.endpoint, events: ['messages'], headers: { Authorization: '***', 'X-Shop': '***' } },
    });
    expect(changed).toMatchObject({ action: 'webhook.updated', before: { events: ['messages'] }, after: { events: ['messages', 'user_preferences'] } });
    expect(deleted).toMatchObject({ action: 'webhook.deleted', after: null });

    const secrets = ['receiver-token', 'shop-42', 'access-token-secret-value', phone.key.split('_')[2]];
    const text = await schemaText(gw.get(Sql), 'gateway', secrets);
    const rows = JSON.stringify(await gw.get(Sql).rows(`SELECT * FROM gateway.audit_log`));
    for (const secret of secrets) {
      expect(rows).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
  });

  it('records opt-outs set and lifted by hand, and keyword changes; nothing for what failed or changed nothing', async () => {
    await request(gw.http).put(`/api/OptOuts/${WA_ID}`).set(phone.headers).expect(200);
    await request(gw.http).put(`/api/OptOuts/${WA_ID}`).set(phone.headers).expect(200);
    await request(gw.http).delete(`/api/OptOuts/${WA_ID}`).set(phone.headers).expect(204);
    await request(gw.http).delete(`/api/OptOuts/${WA_ID}`).set(phone.headers).expect(404);
    await request(gw.http)
      .put('/api/OptOuts/Keywords')
      .set(phone.headers)
      .send({ opt_out: ['parar'], opt_in: ['voltar'] })
      .expect(200);
    await request(gw.http).put('/api/OptOuts/Keywords').set(phone.headers).send({ opt_out: 'parar' }).expect(400);
    const [keywords, lifted, set] = await records();
    expect(set).toMatchObject({ action: 'opt_out.set', target_type: 'opt_out', target_id: WA_ID, after: { opted_out: true, source: 'api' } });
    expect(lifted).toMatchObject({ action: 'opt_out.removed', before: { opted_out: true }, after: null });
    expect(keywords).toMatchObject({ action: 'opt_out_keywords.set', after: { opt_out: ['PARAR'], opt_in: ['VOLTAR'] } });
    expect(await records()).toHaveLength(4); // with the key's issuance
  });

  it('records profile changes the network took', async () => {
    await request(gw.http).post('/api/Profiles').set(phone.headers).send({ messaging_product: NETWORK, about: 'Open daily' }).expect(201);
    const [changed] = await records('?action=profile.updated');
    expect(changed).toMatchObject({ target_type: 'profile', target_id: phone.phoneId, after: { about: 'Open daily' } });
  });

  it('shows an account only its own records', async () => {
    await request(gw.http).put(`/api/OptOuts/${WA_ID}`).set(phone.headers).expect(200);
    const other = await gw.newPhone();
    const theirs = await records('', other);
    expect(theirs.map((r) => r.action)).toEqual(['api_key.created']);
    expect(theirs[0].target_id).toBe(keyId(other.key));
  });

  it('pages newest first and filters by action and time', async () => {
    for (const id of ['5511900000001', '5511900000002', '5511900000003']) await request(gw.http).put(`/api/OptOuts/${id}`).set(phone.headers).expect(200);
    const first = await request(gw.http).get('/api/Audit?limit=2&action=opt_out.set').set(phone.headers).expect(200);
    expect(first.body.data.map((r: AuditRecordDto) => r.target_id)).toEqual(['5511900000003', '5511900000002']);
    const second = await request(gw.http).get(`/api/Audit?limit=2&action=opt_out.set&after=${first.body.paging.cursors.after}`).set(phone.headers).expect(200);
    expect(second.body.data.map((r: AuditRecordDto) => r.target_id)).toEqual(['5511900000001']);
    expect(await records(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
  });

  it('answers any query with 200 or 400, never 5xx', async () => {
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom('opt_out.set', '0', '-1', '9999-12-31T23:59:59Z'),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('action', 'from', 'to', 'limit', 'after', 'other'), value, { maxKeys: 4 }), async (query) => {
        const res = await request(gw.http).get('/api/Audit').query(query).set(phone.headers);
        expect([200, 400]).toContain(res.status);
      }),
      { numRuns: 60 },
    );
  });
});
