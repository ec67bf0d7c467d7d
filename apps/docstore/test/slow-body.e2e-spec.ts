import { trickleBody } from '@app/testkit';
import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

/** Issue 28: a JSON body that stalls is cut within BODY_TIMEOUT_SECONDS (+ one check), not Node's 300 s. */
describe('docstore slow bodies', () => {
  let ds: Docstore;
  let c: Client;

  beforeAll(async () => {
    ds = await startDocstore({ BODY_TIMEOUT_SECONDS: '2' });
    c = await ds.newClient();
  });
  afterAll(() => ds.close());

  it('answers 408 to a body trickled at 1 byte per second and closes the connection within the bound', async () => {
    const res = await trickleBody(ds.http, { method: 'PUT', path: `${c.doc()}/slow`, headers: c.auth });
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body).message).toContain('BODY_TIMEOUT_SECONDS');
    expect(res.closeHeader).toBe(true);
    expect(res.closedAfterMs).toBeGreaterThanOrEqual(2000);
    expect(res.closedAfterMs).toBeLessThan(2000 + 500 + 1000);
    // Nothing was stored, and the next request is served as usual.
    await request(ds.http).get(`${c.doc()}/slow`).set(c.auth).expect(404);
    await request(ds.http)
      .post(`${c.doc()}/fast`)
      .set(c.auth)
      .send(docBody('fast', { a: 1 }))
      .expect(201);
  });
});
