import { existsSync } from 'node:fs';
import { exerciseDocsPage } from '@app/testkit';
import { startDocstore, type Docstore } from './support/docstore-test';

describe('docstore: /docs in headless Chromium', () => {
  let ds: Docstore;

  beforeAll(async () => {
    ds = await startDocstore();
  });
  afterAll(() => ds.close());

  it('lists every endpoint group of the spec, and runs an authorised request from the page', async () => {
    const client = await ds.newClient();
    const result = await exerciseDocsPage(ds, 'docstore', { bearer: client.token }, {
      tag: 'tokens',
      method: 'GET',
      path: '/api/v1/client/{client}/tokens',
      params: { client: client.id },
    });
    expect(result.specTags.length).toBeGreaterThanOrEqual(5);
    expect(result.pageTags).toEqual(result.specTags);
    expect(result.status).toBe('200');
    expect(existsSync(result.screenshot)).toBe(true);
  }, 60_000);
});
