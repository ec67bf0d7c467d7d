import { describePathParameterWalk } from '@app/testkit';
import { request, startDocstore, type Client, type Docstore } from './support/docstore-test';

const UNSTORABLE = 'may not hold a NUL character (\\u0000) or an unpaired surrogate: they cannot be stored.';

describe('docstore: path parameters', () => {
  let ds: Docstore;
  let c: Client;
  let valid: Record<string, string>;

  beforeAll(async () => {
    ds = await startDocstore({ RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_AUTH_PER_MINUTE: '1000000' });
    c = await ds.newClient();
    const doc = `${c.doc()}/seed-1`;
    await request(ds.http)
      .post(doc)
      .set(c.auth)
      .send({ environment: 'production', context: 'shop', type: 'product', key: 'seed-1', data: { v: 1 } })
      .expect(201);
    const history = await request(ds.http).get(`${doc}/history`).set(c.auth).expect(200);
    const tokenId = (await ds.mintToken(c.id, ['document:read'])).split('|')[0];
    const hook = await request(ds.http)
      .post(`/api/v1/client/${c.id}/webhooks`)
      .set(c.auth)
      .send({ url: 'https://192.0.0.170.nip.invalid/hook', events: ['document.deleted'], status: 'inactive' })
      .expect(201);
    valid = {
      client: c.id,
      environment: 'production',
      context: 'shop',
      type: 'product',
      key: 'seed-1',
      history_id: history.body.data[0].id,
      tokenId,
      webhookId: hook.body.id,
      deliveryId: '00000000-0000-4000-8000-000000000000',
    };
  });
  afterAll(() => ds.close());

  describePathParameterWalk(() => ({
    app: ds.app,
    http: ds.http,
    headers: c.auth,
    valid,
    // The spec's error body: JSON with a message (401 and 403 with `error` too).
    assertErrorBody: (res) => {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual(expect.objectContaining({ message: expect.stringMatching(/./) }));
    },
    expected: [
      'GET /api/v1/client/:client/:environment/context/:context/type/:type/:key :key',
      'POST /api/v1/client/:client/:environment/context/:context/type/:type/:key/history/:history_id/restore :history_id',
      'POST /api/v1/client/:client/webhooks/:webhookId/deliveries/:deliveryId/redeliver :deliveryId',
      'PUT /api/v1/client/:client/tokens/:tokenId :tokenId',
      'GET /health +segment',
    ],
  }));

  it('answers a NUL in a path segment or an id with 400 {message} naming the parameter', async () => {
    for (const [method, path, param] of [
      ['get', `${c.doc()}/a%00b`, 'key'],
      ['post', `${c.doc()}/%00`, 'key'],
      ['get', c.doc('prod%00'), 'environment'],
      ['post', `${c.doc()}/seed-1/history/%00/restore`, 'history_id'],
      ['put', `/api/v1/client/${c.id}/tokens/%00`, 'tokenId'],
      ['get', `/api/v1/client/${c.id}/webhooks/%00`, 'webhookId'],
    ] as const) {
      const res = await request(ds.http)[method](path).set(c.auth).send({});
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 400, body: { message: `The path parameter ${param} ${UNSTORABLE}` } });
    }
  });

  it('keeps its 422 for the control characters a segment may not hold, and its 400 for a client that is not a UUID', async () => {
    const res = await request(ds.http).get(`${c.doc()}/a%01b`).set(c.auth).expect(422);
    expect(res.body.errors.key).toEqual([expect.any(String)]);
    await request(ds.http).get('/api/v1/client/%00/tokens').set(c.auth).expect(400, { message: 'The client in the path must be a UUID.' });
  });

  it('answers malformed percent-encoding and bytes that are not UTF-8 with 400 {message}', async () => {
    for (const segment of ['%E0%A4%A', '%FF', '%ED%A0%80', '%']) {
      const res = await request(ds.http).get(`${c.doc()}/${segment}`).set(c.auth).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({ message: `Failed to decode param '${segment}'` });
    }
  });
});
