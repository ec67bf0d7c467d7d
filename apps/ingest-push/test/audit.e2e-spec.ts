import type { AuditRecordDto } from '@app/audit';
import { schemaText } from '@app/testkit';
import fc from 'fast-check';
import request from 'supertest';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { issuePushToken } from '../src/push/push-token.issuer';
import { PushTokensRepository } from '../src/push/push-tokens.repository';
import { dueIn, pushItem } from './support/push-test';
import { csvText, saleCells } from './support/sale-fixtures';
import { SALES_PATH, startIngest, upload, type IngestApp } from './support/sales-test';

const CPF = '529.982.247-25';

describe('audit log (ingest-push)', () => {
  let t: IngestApp;
  const records = async (auth: { [header: string]: string }, query = ''): Promise<AuditRecordDto[]> =>
    (await request(t.http).get(`/DataInserterSales/api/audit${query}`).set(auth).expect(200)).body.data;

  beforeAll(async () => {
    t = await startIngest({ RATE_LIMIT_PER_MINUTE: '1000000', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  async function account() {
    const sales = await t.apiKey();
    const token = await issuePushToken(t.get(PushTokensRepository), t.get(AccountsRepository), sales.account, 'mobile');
    return { ...sales, token, apiKey: { apiKey: sales.key }, bearer: { authorization: `Bearer ${token}` } };
  }

  it('records the sales key and the push token issued by the command line, never a secret; either credential reads the log', async () => {
    const a = await account();
    const viaKey = await records(a.apiKey);
    expect(viaKey).toEqual(await records(a.bearer));
    expect(viaKey.map((r) => [r.action, r.target_id, r.actor.credential_id, r.after])).toEqual([
      ['push_token.created', a.token.split('_')[1], 'cli', { name: 'mobile' }],
      ['api_key.created', a.key.split('_')[1], 'cli', { name: 'test' }],
    ]);
    const secrets = [a.key.split('_')[2], a.token.split('_')[2]];
    const text = await schemaText(t.sql, 'ingest_push', secrets);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it('records a customer erasure by its keyed hash, never the CPF', async () => {
    const a = await account();
    const rows = [saleCells(1, { CustomerCPF_CNPJ: CPF, CustomerName: 'Maria Audit' })];
    expect((await upload(t.port, { apiKey: a.key, 'Content-Type': 'text/csv' }, csvText(rows))).status).toBe(201);
    await request(t.http)
      .delete(`${SALES_PATH}/customers/${encodeURIComponent(CPF)}`)
      .set(a.apiKey)
      .set('X-Forwarded-For', '192.0.2.10')
      .expect(200);
    const [erased] = await records(a.apiKey, '?action=customer.erased');
    expect(erased).toMatchObject({
      target_type: 'customer',
      target_id: expect.stringMatching(/^[0-9a-f]{64}$/),
      actor: { credential_id: a.key.split('_')[1], name: 'test', ip: '192.0.2.10' },
      after: { lines: 1, errors: 0 },
    });
    const audit = JSON.stringify(await t.sql.rows(`SELECT * FROM ingest_push.audit_log WHERE tenant_id = $1`, [a.accountId]));
    for (const personal of ['52998224725', CPF, 'Maria Audit']) expect(audit).not.toContain(personal);
  });

  it('records a push batch cancel with the counts; a cancel of an unknown batch records nothing', async () => {
    const a = await account();
    const posted = await request(t.http)
      .post('/api/pushm/bulk')
      .set({ ...a.bearer, 'content-type': 'application/json' })
      .send({ pushs: [pushItem(dueIn(3_600_000)), pushItem(dueIn(3_600_000))] })
      .expect(202);
    const batchId = posted.body.batch_id;
    await request(t.http).delete(`/api/pushm/bulk/${batchId}`).set(a.bearer).expect(200);
    await request(t.http).delete('/api/pushm/bulk/00000000-0000-4000-8000-000000000000').set(a.bearer).expect(404);
    const cancels = await records(a.bearer, '?action=push_batch.cancelled');
    expect(cancels).toHaveLength(1);
    expect(cancels[0]).toMatchObject({
      target_id: batchId,
      actor: { credential_id: `push:${a.token.split('_')[1]}`, name: 'mobile' },
      after: { cancelled_now: 2 },
    });
  });

  it('records each change of the push settings with the fields before and after; a refused change records nothing', async () => {
    const a = await account();
    const put = (body: object) =>
      request(t.http)
        .put('/api/pushm/settings')
        .set({ ...a.bearer, 'content-type': 'application/json' })
        .send(body);
    await put({ cap_max_pushes: 3, cap_window_hours: 24 }).expect(200);
    await put({ cap_max_pushes: 3, cap_window_hours: 24, quiet_start: '22:00', quiet_end: '08:00' }).expect(200);
    await put({ cap_max_pushes: 3 }).expect(422);
    const changes = await records(a.bearer, '?action=push_settings.updated');
    expect(changes).toHaveLength(2);
    expect(changes[0]).toMatchObject({
      target_type: 'push_settings',
      actor: { credential_id: `push:${a.token.split('_')[1]}`, name: 'mobile' },
      after: { quiet_start: '22:00', quiet_end: '08:00' },
    });
    expect(changes[1].before).toBeNull();
    expect(changes[1].after).toMatchObject({ cap_max_pushes: 3, cap_window_hours: 24 });
  });

  it('shows an account only its own records', async () => {
    const a = await account();
    const b = await account();
    const mine = await records(a.apiKey);
    expect(mine.every((r) => [a.key, a.token].some((c) => c.split('_')[1] === r.target_id))).toBe(true);
    expect((await records(b.apiKey)).some((r) => mine.some((m) => m.target_id === r.target_id))).toBe(false);
    await request(t.http).get('/DataInserterSales/api/audit').expect(401);
  });

  it('answers any query with 200 or 422, never 5xx', async () => {
    const a = await account();
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constantFrom('api_key.created', '0', '-1'),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('action', 'from', 'to', 'page', 'per_page', 'other'), value, { maxKeys: 4 }), async (query) => {
        const res = await request(t.http).get('/DataInserterSales/api/audit').query(query).set(a.apiKey);
        expect([200, 422]).toContain(res.status);
      }),
      { numRuns: 50 },
    );
  });
});
