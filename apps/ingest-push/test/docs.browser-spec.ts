import { existsSync } from 'node:fs';
import { exerciseDocsPage } from '@app/testkit';
import { pushItem, startPush, type PushApp } from './support/push-test';

describe('ingest-push: /docs in headless Chromium', () => {
  let app: PushApp;

  beforeAll(async () => {
    app = await startPush();
  });
  afterAll(() => app.close());

  it('lists every endpoint group of the spec, and runs an authorised request from the page', async () => {
    const token = await app.token();
    const posted = await app.post(token, [pushItem()]).expect(202);
    const result = await exerciseDocsPage(app, 'ingest-push', { bearer: token }, {
      tag: 'push',
      method: 'GET',
      path: '/api/pushm/bulk/{batchId}',
      params: { batchId: posted.body.batch_id },
    });
    // The spec's groups: sales ingestion and bulk push.
    for (const group of ['sales', 'push']) expect(result.specTags).toContain(group);
    expect(result.pageTags).toEqual(result.specTags);
    expect(result.status).toBe('200');
    expect(existsSync(result.screenshot)).toBe(true);
  }, 60_000);
});
