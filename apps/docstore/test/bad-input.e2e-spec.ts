import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

describe('probe', () => {
  let ds: Docstore;
  let c: Client;
  beforeAll(async () => { ds = await startDocstore({ RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_AUTH_PER_MINUTE: '100000' }); c = await ds.newClient(); });
  afterAll(() => ds.close());

  it('probes', async () => {
    const out: string[] = [];
    const log = (name: string, r: request.Response) => out.push(`${name}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
    await request(ds.http).post(`${c.doc()}/k`).set(c.auth).send(docBody('k', { a: 'x', n: 5 }));
    for (const q of ['filter[a]=x', 'filter[n]=5', 'filter[a_neq]=y', 'filter[a]=%00', 'filter[a_like]=%00', 'filter[a%00]=1', 'sort=a%00', 'filter[a_gt]=1e999999', 'filter[a]=1e999999','filter[a_gt]=1e-999999', 'filter[a]=1e-999999', 'filter[a_gt]=1e400', 'filter[a]=1e131071','filter[a]=1e-16383', 'filter[a_gt]=1e-16383', 'filter[a_gt]=1e-16384', 'filter[a]=12345678901234567890123456789012345678901234567890']) {
      log(`list ${q}`, await request(ds.http).get(`${c.doc()}?${q}`).set(c.auth));
    }
    console.log(out.join('\n'));
  }, 60000);
});
