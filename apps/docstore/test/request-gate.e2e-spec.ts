import { Sql } from '@app/database';
import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

/** Issue 7 through the docstore: bodies read only after authentication, 415, lossless numbers, rate-limit headers on every answer. */
describe('docstore request gate', () => {
  let ds: Docstore;
  let c: Client;

  beforeAll(async () => {
    ds = await startDocstore();
    c = await ds.newClient();
    await request(ds.http)
      .post(`${c.doc()}/k`)
      .set(c.auth)
      .send(docBody('k', { a: 1 }))
      .expect(201);
  });
  afterAll(() => ds.close());

  const documents = async (): Promise<number> =>
    (await ds.get(Sql).one<{ n: number }>(`SELECT count(*)::int AS n FROM docstore.documents WHERE client_id = $1`, [c.id]))!.n;

  it('leaves other clients served while 20 unauthenticated 5 MiB bodies arrive: they are never parsed', async () => {
    const zeros = `[${'0,'.repeat(2_599_999)}0]`; // 2.6M elements, 5.2 MB: just under the body limit
    const keys = `{${Array.from({ length: 500_000 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`;
    expect(zeros.length).toBeLessThan(5 * 1024 * 1024);
    expect(keys.length).toBeLessThan(5 * 1024 * 1024);

    // Parsing is what the gate spares: any JSON.parse of a megabyte-sized text during the flood would be one of these bodies.
    const parse = jest.spyOn(JSON, 'parse');
    let done = 0;
    const hostile = Array.from({ length: 20 }, (_, i) =>
      request(ds.http)
        .post(`${c.doc()}/hostile-${i}`)
        .set('Content-Type', 'application/json')
        .send(i % 2 ? keys : zeros)
        .then((res) => {
          done++;
          return res.status;
        }),
    );
    // Other clients keep being answered while the bodies arrive (and are drained after their 401s).
    let served = 0;
    while (done < 20 || served < 100) {
      await request(ds.http).get(`${c.doc()}/k`).set(c.auth).expect(200);
      served++;
    }
    const statuses = await Promise.all(hostile);
    const bigParses = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > 1_000_000).length;
    parse.mockRestore();
    expect(bigParses).toBe(0);
    expect(statuses).toEqual(Array(20).fill(401));
    expect(await documents()).toBe(1);
  }, 120_000);

  it('answers 415 to a PUT or POST whose body is not JSON, and changes nothing', async () => {
    const tokenId = (await ds.mintToken(c.id, ['document:read'])).split('|')[0];
    const tokenPath = `/api/v1/client/${c.id}/tokens/${tokenId}`;
    for (const send of [
      () => request(ds.http).put(tokenPath).set(c.auth).set('Content-Type', 'text/plain').send('{"name":"renamed"}'),
      () => request(ds.http).put(tokenPath).set(c.auth).type('form').send({ name: 'renamed' }),
      () => request(ds.http).put(tokenPath).set(c.auth).field('name', 'renamed'),
      () =>
        request(ds.http).put(`/api/v1/client/${c.id}/webhooks/${tokenId}`).set(c.auth).set('Content-Type', 'text/plain').send('{"url":"https://example.com"}'),
      () => request(ds.http).post(`/api/v1/client/${c.id}/webhooks`).set(c.auth).type('form').send({ url: 'https://example.com' }),
      () =>
        request(ds.http)
          .put(`${c.doc()}/k`)
          .set(c.auth)
          .set('Content-Type', 'text/plain')
          .send(JSON.stringify(docBody('k', { a: 2 }))),
    ]) {
      const res = await send().expect(415);
      expect(res.body).toEqual({ message: expect.stringContaining('application/json') });
      expect(res.headers['x-ratelimit-limit']).toEqual(expect.any(String));
    }
    const tokens = await request(ds.http).get(`/api/v1/client/${c.id}/tokens`).set(c.auth).expect(200);
    expect(tokens.body.data.find((t: { id: string }) => t.id === tokenId).name).toBe('test');
    expect((await request(ds.http).get(`${c.doc()}/k`).set(c.auth).expect(200)).body.data).toEqual({ a: 1 });
  });

  it('refuses numbers that would not be stored exactly with 422 naming the field, and stores nothing', async () => {
    const raw = (data: string, key = 'nums') => `{"environment":"production","context":"shop","type":"product","key":"${key}","data":${data}}`;
    const created = await request(ds.http)
      .post(`${c.doc()}/nums`)
      .set(c.auth)
      .set('Content-Type', 'application/json')
      .send(raw('{"big":12345678901234567890,"huge":1e400}'))
      .expect(422);
    expect(created.body.errors).toEqual({ 'data.big': [expect.stringContaining('exactly')] });
    const huge = await request(ds.http)
      .put(`${c.doc()}/k`)
      .set(c.auth)
      .set('Content-Type', 'application/json')
      .send(raw('{"ok":1,"huge":1e400}', 'k'))
      .expect(422);
    expect(Object.keys(huge.body.errors)).toEqual(['data.huge']);
    const bulk = await request(ds.http)
      .post(`${c.doc()}/bulk`)
      .set(c.auth)
      .set('Content-Type', 'application/json')
      .send('{"documents":[{"key":"b1","data":{"x":[1,0.12345678901234567891]}}]}')
      .expect(422);
    expect(Object.keys(bulk.body.errors)).toEqual(['documents.0.data.x.1']);
    await request(ds.http).get(`${c.doc()}/nums`).set(c.auth).expect(404);
    expect(await documents()).toBe(1);
    // Numbers a double keeps exactly are stored as sent.
    const kept = await request(ds.http)
      .post(`${c.doc()}/exact`)
      .set(c.auth)
      .set('Content-Type', 'application/json')
      .send(raw('{"a":12345678901234567000,"b":1e300,"c":0.1}', 'exact'))
      .expect(201);
    expect(kept.body.data).toEqual({ a: 12345678901234567000, b: 1e300, c: 0.1 });
  });

  it('puts X-RateLimit-* on 400, 413 and unknown-route 404 answers whenever the caller is known', async () => {
    const limited = (res: { headers: Record<string, string> }) => expect(res.headers['x-ratelimit-limit']).toBe('1000');
    limited(await request(ds.http).post(`${c.doc()}/m`).set(c.auth).set('Content-Type', 'application/json').send('{"a":').expect(400));
    limited(
      await request(ds.http)
        .post(`${c.doc()}/m`)
        .set(c.auth)
        .send(docBody('m', { s: 'x'.repeat(6 * 1024 * 1024) }))
        .expect(413),
    );
    for (const path of ['/nope', `/api/v1/client/${c.id}/nothing-here`, '/api/v2/x']) {
      const res = await request(ds.http).get(path).set(c.auth).expect(404);
      limited(res);
      expect(res.body).toEqual({ message: expect.any(String) });
    }
    const fromHeaders = await request(ds.http)
      .delete('/nope')
      .set({ 'X-Client-Key': c.token.split('|')[0], 'X-Client-Token': c.token.split('|')[1] })
      .expect(404);
    limited(fromHeaders);
    // Unknown callers get a plain 404: nothing to count, and no failure counted against their address.
    for (const headers of [{}, { Authorization: `Bearer ${c.token.split('|')[0]}|wrong` }]) {
      const res = await request(ds.http).get('/nope').set(headers).expect(404);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });
});
