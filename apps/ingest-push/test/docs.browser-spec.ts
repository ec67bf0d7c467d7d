import { existsSync } from 'node:fs';
import { exerciseDocsPage } from '@app/testkit';
import { AccountsRepository } from '../src/accounts/accounts.repository';
import { issueSalesApiKey } from '../src/sales/sales-api-key.issuer';
import { SalesApiKeysRepository } from '../src/sales/sales-api-keys.repository';
import { startPush, type PushApp } from './support/push-test';

describe('ingest-push: /docs in headless Chromium', () => {
  let app: PushApp;

  beforeAll(async () => {
    app = await startPush();
  });
  afterAll(() => app.close());

  it('lists every endpoint group, sends a bulk push and a sales file from the page, and reads the ingestion back', async () => {
    const token = await app.token();
    const key = await issueSalesApiKey(app.get(SalesApiKeysRepository), app.get(AccountsRepository), `docs-browser-${process.pid}`, 'test');
    // The bodies are the document's examples as the page offers them.
    const result = await exerciseDocsPage(
      app,
      'ingest-push',
      { bearer: token, apiKey: key },
      { tag: 'push', method: 'POST', path: '/api/pushm/bulk' },
      { tag: 'sales', method: 'POST', path: '/DataInserterSales/api/sales' },
      {
        tag: 'sales',
        method: 'GET',
        path: '/DataInserterSales/api/sales/ingestions/{id}',
        params: ([, upload]) => ({ id: JSON.parse(upload.body).ingestion_id }),
      },
    );
    // The spec's groups: sales ingestion and bulk push.
    for (const group of ['sales', 'push']) expect(result.specTags).toContain(group);
    expect(result.pageTags).toEqual(result.specTags);
    const [push, upload, ingestion] = result.answers;
    expect(push.status).toBe('202');
    expect(JSON.parse(push.body)).toMatchObject({ batch_id: expect.any(String), accepted: 1, rejected: 0 });
    expect(upload.status).toBe('201');
    expect(JSON.parse(upload.body)).toMatchObject({ status: 'completed', format: 'json', received: 1, rejected: 0 });
    expect(ingestion.status).toBe('200');
    expect(JSON.parse(ingestion.body)).toMatchObject({ ingestion_id: JSON.parse(upload.body).ingestion_id, status: 'completed' });
    expect(existsSync(result.screenshot)).toBe(true);
  }, 120_000);
});
