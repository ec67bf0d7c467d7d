import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

describe('documents', () => {
  let ds: Docstore;
  let c: Client;

  beforeAll(async () => {
    ds = await startDocstore();
  });
  afterAll(() => ds.close());
  beforeEach(async () => {
    c = await ds.newClient();
  });

  it('creates a document at version 1 and reads it back', async () => {
    const created = await request(ds.http).post(`${c.doc()}/sku-1`).set(c.auth).send(docBody('sku-1', { price: 10 })).expect(201);
    expect(created.body).toMatchObject({ client_id: c.id, environment: 'production', context: 'shop', type: 'product', key: 'sku-1', data: { price: 10 }, version: 1, expires_at: null });
    expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(created.headers.etag).toBe('"1"');
    const read = await request(ds.http).get(`${c.doc()}/sku-1`).set(c.auth).expect(200);
    expect(read.body).toEqual(created.body);
  });
});
