import { existsSync } from 'node:fs';
import { exerciseDocsPage } from '@app/testkit';
import { startDocstore, type Docstore } from './support/docstore-test';

const SCOPE = '/api/v1/client/{client}/{environment}/context/{context}/type/{type}';

describe('docstore: /docs in headless Chromium', () => {
  let ds: Docstore;

  beforeAll(async () => {
    ds = await startDocstore();
  });
  afterAll(() => ds.close());

  it('lists every endpoint group, and creates a document from the page with the example as offered', async () => {
    const client = await ds.newClient();
    const result = await exerciseDocsPage(
      ds,
      'docstore',
      { bearer: client.token },
      {
        tag: 'documents',
        method: 'POST',
        path: `${SCOPE}/{key}`,
        // Only the client is typed in: the other path parameters and the body are the document's examples.
        params: { client: client.id },
      },
    );
    expect(result.specTags.length).toBeGreaterThanOrEqual(5);
    expect(result.pageTags).toEqual(result.specTags);
    const [created] = result.answers;
    expect(created.status).toBe('201');
    expect(JSON.parse(created.body)).toMatchObject({
      client_id: client.id,
      environment: 'production',
      context: 'shop',
      type: 'product',
      key: 'sku-1',
      version: 1,
      data: { name: 'Mug' },
    });
    expect(existsSync(result.screenshot)).toBe(true);
  }, 60_000);
});
