import fc from 'fast-check';
import { Sql } from '@app/database';
import { docBody, request, useDocstore, type Client, type Docstore } from './support/docstore-test';

jest.setTimeout(60_000);

const HOUR_MS = 3_600_000;
const hourOf = (ms: number) => new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString().replace('.000Z', 'Z');
const READ_SHOP = { permissions: [], document_rules: [{ environment: 'production', context: 'shop', permissions: ['document:read'] }] };

interface Bucket {
  hour: string;
  total: number;
  by_status: { created: number; updated: number; deleted: number };
  webhook_deliveries: { total: number; by_status: { succeeded: number; failed: number } };
}

interface Collection {
  environment: string;
  context: string;
  type: string;
  documents: number;
}

describe('GET …/collections and GET …/stats: the reads across a client collections', () => {
  let ds: Docstore;
  let c: Client;
  let started: number;
  useDocstore({ app: (d) => (ds = d) });

  const get = (client: Client, path: string, auth = client.auth) => request(ds.http).get(`/api/v1/client/${client.id}/${path}`).set(auth);
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const create = (env: string, ctx: string, type: string, key: string) =>
    request(ds.http)
      .post(`${c.doc(env, ctx, type)}/${key}`)
      .set(c.auth)
      .send(docBody(key, { key }, {}, env, ctx, type))
      .expect(201);

  beforeAll(async () => {
    started = Date.now();
    c = await ds.newClient();
    await create('production', 'shop', 'product', 'a');
    await create('production', 'shop', 'product', 'b');
    await create('production', 'shop', 'order', 'x');
    await create('staging', 'blog', 'post', 'p');
    await request(ds.http)
      .put(`${c.doc()}/a`)
      .set(c.auth)
      .send(docBody('a', { key: 'a', v: 2 }))
      .expect(200);
    await request(ds.http).delete(`${c.doc()}/b`).set(c.auth).expect(200);
    // Finished deliveries of a webhook (made under the client id in upper case, which it counts under all the same), as the
    // workers record them: two to production/shop now, one failed to staging/blog, one 3 hours ago.
    const hook = await request(ds.http)
      .post(`/api/v1/client/${c.id.toUpperCase()}/webhooks`)
      .set(c.auth)
      .send({ url: 'https://93.184.216.34/hook', events: ['document.read'] })
      .expect(201);
    const deliver = (env: string, ctx: string, status: string, hoursAgo: number) =>
      ds.get(Sql).rows(
        `INSERT INTO docstore.webhook_deliveries (webhook_id, owner, event_id, event_type, occurred_at, data, status, next_attempt_at, created_at)
         VALUES ($1, $2, gen_random_uuid(), 'document.created', now(), $3::json, $4, NULL, now() - make_interval(hours => $5))`,
        [hook.body.id, c.id, JSON.stringify({ environment: env, context: ctx, type: 't', key: 'k' }), status, hoursAgo],
      );
    await deliver('production', 'shop', 'succeeded', 0);
    await deliver('production', 'shop', 'succeeded', 0);
    await deliver('staging', 'blog', 'failed', 0);
    await deliver('production', 'shop', 'succeeded', 3);
  });

  it('lists the triples holding live documents, sorted, with their counts, in the paginated envelope', async () => {
    const res = await get(c, 'collections').expect(200);
    expect(res.body).toMatchObject({ current_page: 1, per_page: 15, total: 3, from: 1, to: 3, last_page: 1 });
    expect(res.body.data).toEqual([
      { environment: 'production', context: 'shop', type: 'order', documents: 1 },
      { environment: 'production', context: 'shop', type: 'product', documents: 1 },
      { environment: 'staging', context: 'blog', type: 'post', documents: 1 },
    ]);
    const second = await get(c, 'collections?per_page=2&page=2').expect(200);
    expect(second.body).toMatchObject({ total: 3, from: 3, to: 3, data: [{ environment: 'staging', context: 'blog', type: 'post', documents: 1 }] });
    expect((await get(c, 'collections?page=9').expect(200)).body).toMatchObject({ total: 3, data: [], from: null });
  });

  it('counts writes and finished deliveries per hour', async () => {
    const res = await get(c, 'stats').expect(200);
    expect(res.body).toMatchObject({ client_id: c.id, window: '24h', since: hourOf(Date.now() - 23 * HOUR_MS) });
    expect(res.body.data).toHaveLength(24);
    const now = res.body.data.at(-1);
    expect(now.hour).toBe(hourOf(Date.now()));
    // Writes made since the test began (one hour, or two when it began just before an hour's end).
    const since: Bucket[] = res.body.data.filter((b: Bucket) => b.hour >= hourOf(started));
    const sum = (pick: (b: Bucket) => number) => since.reduce((n, b) => n + pick(b), 0);
    expect(sum((b) => b.by_status.created)).toBe(4);
    expect(sum((b) => b.by_status.updated)).toBe(1);
    expect(sum((b) => b.by_status.deleted)).toBe(1);
    expect(sum((b) => b.total)).toBe(6);
    expect(sum((b) => b.webhook_deliveries.by_status.succeeded)).toBe(2);
    expect(sum((b) => b.webhook_deliveries.by_status.failed)).toBe(1);
    // The delivery of 3 hours ago, in its own hour.
    const earlier = res.body.data.filter((b: Bucket) => b.hour < hourOf(started) && b.webhook_deliveries.total > 0);
    expect(earlier.map((b: Bucket) => b.webhook_deliveries)).toEqual([{ total: 1, by_status: { succeeded: 1, failed: 0 } }]);
    expect(res.body.data[0]).toEqual({
      hour: res.body.since,
      total: 0,
      by_status: { created: 0, updated: 0, deleted: 0 },
      webhook_deliveries: { total: 0, by_status: { succeeded: 0, failed: 0 } },
    });
    const week = await get(c, 'stats?window=7d').expect(200);
    expect(week.body).toMatchObject({ window: '7d', since: hourOf(Date.now() - 167 * HOUR_MS) });
    expect(week.body.data).toHaveLength(168);
  });

  it('shows a token whose document rules grant document:read only their environments and contexts', async () => {
    const auth = bearer(await ds.mintToken(c.id, READ_SHOP));
    expect((await get(c, 'collections', auth).expect(200)).body.data.map((x: Collection) => x.type)).toEqual(['order', 'product']);
    const stats = (await get(c, 'stats', auth).expect(200)).body;
    const totals = stats.data.reduce((n: number, b: { total: number }) => n + b.total, 0);
    expect(totals).toBe(5);
    const deliveries = stats.data.map((b: { webhook_deliveries: { by_status: { succeeded: number; failed: number } } }) => b.webhook_deliveries.by_status);
    expect(deliveries.reduce((n: number, d: { succeeded: number }) => n + d.succeeded, 0)).toBe(3);
    expect(deliveries.reduce((n: number, d: { failed: number }) => n + d.failed, 0)).toBe(0);
  });

  it('refuses a token without document:read (403), another client token (403), and answers a client of its own with nothing', async () => {
    const noRead = bearer(await ds.mintToken(c.id, ['token:manage', 'document:create']));
    for (const path of ['collections', 'stats']) {
      const res = await get(c, path, noRead).expect(403);
      expect(res.body.message).toBe('This token lacks the required scope: document:read.');
    }
    const other = await ds.newClient();
    await get(c, 'collections', other.auth).expect(403);
    await get(c, 'stats', other.auth).expect(403);
    expect((await get(other, 'collections').expect(200)).body).toMatchObject({ total: 0, data: [] });
    const stats = (await get(other, 'stats').expect(200)).body;
    expect(stats.data.every((b: { total: number; webhook_deliveries: { total: number } }) => b.total === 0 && b.webhook_deliveries.total === 0)).toBe(true);
    await request(ds.http).get(`/api/v1/client/${c.id}/stats`).expect(401);
  });

  it('grants no cross-origin access: the console is served from the same origin', async () => {
    const res = await get(c, 'stats').set('Origin', 'https://elsewhere.example').expect(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await request(ds.http)
      .options(`/api/v1/client/${c.id}/stats`)
      .set({ Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET' });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers 422 naming the field to a bad window or page', async () => {
    const res = await get(c, 'stats?window=30d').expect(422);
    expect(res.body.errors).toEqual({ window: ['The window field must be one of 24h, 7d.'] });
    expect((await get(c, 'collections?per_page=101').expect(422)).body.errors).toHaveProperty('per_page');
  });

  it('never answers 5xx to any query', async () => {
    const query = fc.dictionary(fc.constantFrom('page', 'per_page', 'window', 'x'), fc.oneof(fc.string(), fc.constantFrom('7d', '24h', '2')));
    await fc.assert(
      fc.asyncProperty(query, async (q) => {
        for (const path of ['collections', 'stats']) expect([200, 422]).toContain((await get(c, `${path}?${new URLSearchParams(q)}`)).status);
      }),
      { numRuns: 40 },
    );
  });

  it('lists for any set of document rules exactly the collections those rules let the token read', async () => {
    const all: Collection[] = (await get(c, 'collections').expect(200)).body.data;
    const rule = fc.record({
      environment: fc.constantFrom('production', 'staging', '*', 'dev'),
      context: fc.constantFrom('shop', 'blog', '*'),
      permissions: fc.constantFrom('document:read', '*', 'document:create').map((p) => [p]),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(rule, { maxLength: 3 }), async (rules) => {
        const auth = bearer(await ds.mintToken(c.id, { permissions: [], document_rules: rules }));
        const readers = rules.filter((r) => !r.permissions.includes('document:create'));
        const res = await get(c, 'collections', auth);
        if (readers.length === 0) return void expect(res.status).toBe(403);
        const visible = all.filter((x) => readers.some((r) => ['*', x.environment].includes(r.environment) && ['*', x.context].includes(r.context)));
        expect(res.body.data).toEqual(visible);
      }),
      { numRuns: 25 },
    );
  });
});
