import { randomUUID } from 'node:crypto';
import { describePathParameterWalk } from '@app/testkit';
import { startIngest, type IngestApp } from './support/sales-test';
import { issuePushToken } from '../src/push/push-token.issuer';
import { PushTokensRepository } from '../src/push/push-tokens.repository';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import request from 'supertest';

describe('ingest-push: path parameters', () => {
  let t: IngestApp;
  let headers: Record<string, string>;

  beforeAll(async () => {
    t = await startIngest({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_AUTH_PER_MINUTE: '1000000' });
    const sales = await t.apiKey();
    const push = await issuePushToken(t.get(PushTokensRepository), t.get(AccountsRepository), `paths-${process.pid}`, 'test');
    // Each route reads only its own source's header: both pass every gate.
    headers = { apiKey: sales.key, authorization: `Bearer ${push}` };
  });
  afterAll(() => t.close());

  describePathParameterWalk(() => ({
    app: t.app,
    http: t.http,
    headers,
    valid: { cpf_cnpj: '52998224725', rest: '0001-81' },
    assertErrorBody: (res) => {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual(expect.objectContaining({ message: expect.stringMatching(/./) }));
    },
    expected: [
      'GET /DataInserterSales/api/sales/ingestions/:id :id',
      'GET /DataInserterSales/api/sales/ingestions/:id/errors :id',
      'GET /DataInserterSales/api/sales/customers/:cpf_cnpj :cpf_cnpj',
      'DELETE /DataInserterSales/api/sales/customers/:cpf_cnpj :cpf_cnpj',
      'GET /api/pushm/bulk/:batchId :batchId',
      'DELETE /api/pushm/bulk/:batchId :batchId',
      'POST /DataInserterSales/api/sales +segment',
    ],
  }));

  it.each(['/DataInserterSales/api/sales/ingestions/a%00b', '/DataInserterSales/api/sales/ingestions/%00/errors', '/api/pushm/bulk/%00'])(
    '%s: 400 {message} naming the parameter',
    async (path) => {
      const res = await request(t.http).get(path).set(headers).expect(400);
      expect(res.body).toEqual({ message: expect.stringMatching(/^The path parameter (id|batchId) may not hold a NUL character/) });
    },
  );

  it("answers an unknown ingestion's error CSV with 404 in JSON, not under the CSV's content type", async () => {
    const res = await request(t.http).get(`/DataInserterSales/api/sales/ingestions/${randomUUID()}/errors`).set(headers).expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ message: expect.any(String) });
  });
});
