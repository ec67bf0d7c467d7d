import { Sql } from '@app/database';
import { docBody, request, startDocstore, type Client, type Docstore, useDocstore } from './support/docstore-test';

interface Doc {
  key: string;
  data: Record<string, unknown>;
  deleted_at: string | null;
}

const PREV = '&laquo; Previous';
const NEXT = 'Next &raquo;';

describe('document lists', () => {
  let ds: Docstore;
  useDocstore({ app: (d) => (ds = d) });

  const bulk = (c: Client, documents: Array<{ key: string; data: Record<string, unknown> }>) =>
    request(ds.http).post(`${c.doc()}/bulk`).set(c.auth).send({ documents }).expect(200);
  const list = (c: Client, query: string) => request(ds.http).get(`${c.doc()}?${query}`).set(c.auth);
  const keys = async (c: Client, query: string): Promise<string[]> => {
    const res = await list(c, query);
    expect(res.status).toBe(200);
    return res.body.data.map((d: Doc) => d.key);
  };

  describe('filters', () => {
    let c: Client;

    beforeAll(async () => {
      c = await ds.newClient();
      await bulk(c, [
        {
          key: 'a',
          data: {
            name: 'Apple',
            price: 9,
            label: 'v9',
            active: true,
            note: null,
            group: 'x',
            limit_gt: 5,
            address: { city: 'Berlin', floor: 3 },
            released: '2024-01-05',
          },
        },
        {
          key: 'b',
          data: { name: 'banana split', price: 10, label: 'v10', active: false, group: 'y', address: { city: 'Paris', floor: 1 }, released: '2024-03-01' },
        },
        { key: 'c', data: { name: 'Cherry 50% off', price: 100.5, label: 'v100', group: 'x', address: { city: 'berlin', floor: 2 }, released: '2024-02-10' } },
        { key: 'd', data: { name: 'Date_fruit', price: '10', label: 'w', group: 'y' } },
        { key: 'e', data: { name: 'Elder 500', stock: 0, group: 'x' } },
        { key: 'f', data: { name: 'Grape fruit', price: 3, group: 'y', active: 'true' } },
      ]);
    });

    it.each([
      ['equals on a number matches the number and the same string', 'filter[price]=10', ['b', 'd']],
      ['equals on a number', 'filter[price]=9', ['a']],
      ['equals on a string is exact and case-sensitive', 'filter[name]=Apple', ['a']],
      ['equals on a string, other case', 'filter[name]=apple', []],
      ['_gt compares numbers numerically (9 < 10 < 100.5), ignoring strings', 'filter[price_gt]=9', ['b', 'c']],
      ['_gt with a decimal', 'filter[price_gt]=9.5', ['b', 'c']],
      ['_gte', 'filter[price_gte]=9', ['a', 'b', 'c']],
      ['_lt', 'filter[price_lt]=10', ['a', 'f']],
      ['_lte', 'filter[price_lte]=10', ['a', 'b', 'f']],
      ['_lt with a negative number', 'filter[price_lt]=-1', []],
      ['_gt compares strings bytewise ("v9" and "w" > "v2" > "v10")', 'filter[label_gt]=v2', ['a', 'd']],
      ['_lt compares strings bytewise', 'filter[label_lt]=v2', ['b', 'c']],
      ['_gte on ISO dates', 'filter[released_gte]=2024-02-01', ['b', 'c']],
      ['_lt on ISO dates', 'filter[released_lt]=2024-02-01', ['a']],
      ['_neq needs the field present and excludes number and string equals', 'filter[price_neq]=10', ['a', 'c', 'f']],
      ['_like is case-insensitive contains', 'filter[name_like]=APPLE', ['a']],
      ['_like inside a word', 'filter[name_like]=nan', ['b']],
      ['_like treats % literally', `filter[name_like]=${encodeURIComponent('50%')}`, ['c']],
      ['_like treats _ literally', 'filter[name_like]=e_f', ['d']],
      ['_like matches string values only', 'filter[price_like]=1', ['d']],
      ['nested field with dots', 'filter[address.city]=Berlin', ['a']],
      ['nested field with _like', 'filter[address.city_like]=berlin', ['a', 'c']],
      ['nested field with a numeric operator', 'filter[address.floor_lte]=2', ['b', 'c']],
      ['bracket form gte', 'filter[price][gte]=10', ['b', 'c']],
      ['bracket form eq', 'filter[price][eq]=9', ['a']],
      ['bracket form like', 'filter[name][like]=FRUIT', ['d', 'f']],
      ['bracket form on a nested field', 'filter[address.city][neq]=Berlin', ['b', 'c']],
      ['bracket form for a field named like an operator', 'filter[limit_gt][eq]=5', ['a']],
      ['the suffix form reads limit_gt as limit > 5', 'filter[limit_gt]=5', []],
      ['true matches the boolean and the string', 'filter[active]=true', ['a', 'f']],
      ['false matches the boolean', 'filter[active]=false', ['b']],
      ['_neq true', 'filter[active_neq]=true', ['b']],
      ['null matches JSON null', 'filter[note]=null', ['a']],
      ['several filters combine with AND', 'filter[group]=x&filter[price_gt]=9', ['c']],
      ['a field no document has', 'filter[nothing]=1', []],
      ['_neq on a field no document has', 'filter[nothing_neq]=1', []],
      ['a number too large for numeric, compared as a string', 'filter[price_gt]=1e999999', []],
      ['equals with a number too large for numeric', 'filter[price]=1e999999', []],
      ['a large but valid exponent', 'filter[price_lt]=1e300', ['a', 'b', 'c', 'f']],
    ])('%s', async (_name, query, expected) => {
      expect(await keys(c, `${query}&sort=_key`)).toEqual(expected);
    });

    it('reports the filtered total', async () => {
      const res = await list(c, 'filter[group]=x').expect(200);
      expect(res.body).toMatchObject({ total: 3, from: 1, to: 3, last_page: 1 });
      const none = await list(c, 'filter[nothing]=1').expect(200);
      expect(none.body).toMatchObject({ total: 0, data: [], from: null, to: null, last_page: 1 });
    });

    it.each([
      ['filter[price][between]=1'],
      ['filter[price_between][x]=1'],
      ['filter[_gt]=1'],
      ['filter[]=1'],
      ['filter[][eq]=1'],
      ['filter[a..b]=1'],
      ['filter[a][b][c]=1'],
    ])('answers 422 for %s, keyed by the parameter name', async (query) => {
      const res = await list(c, query).expect(422);
      const param = decodeURIComponent(query.slice(0, query.lastIndexOf('=')));
      expect(res.body).toEqual({ message: expect.any(String), errors: { [param]: [expect.any(String)] } });
    });

    it.each([['filter[name]=a%00b'], ['filter[na%00me]=ab'], ['filter[name_like]=%00']])('answers 422 for a NUL character: %s', async (query) => {
      const res = await list(c, query).expect(422);
      expect(Object.keys(res.body.errors)).toEqual([decodeURIComponent(query.slice(0, query.lastIndexOf('=')))]);
    });

    it('answers 422 for filter=x and for a repeated filter', async () => {
      expect((await list(c, 'filter=x').expect(422)).body.errors).toHaveProperty(['filter']);
      expect((await list(c, 'filter[price]=1&filter[price]=2').expect(422)).body.errors).toHaveProperty(['filter[price]']);
    });
  });

  describe('sort', () => {
    let c: Client;

    beforeAll(async () => {
      c = await ds.newClient();
      await bulk(c, [
        { key: 'a', data: { group: 'x', price: 9, address: { floor: 3 } } },
        { key: 'b', data: { group: 'y', price: 10, address: { floor: 1 } } },
        { key: 'c', data: { group: 'x', price: 100.5, address: { floor: 2 } } },
        { key: 'd', data: { group: 'y' } },
        { key: 'e', data: { group: 'x' } },
        { key: 'f', data: { group: 'y', price: 3 } },
      ]);
    });

    it.each([
      ['_key ascending', 'sort=_key', ['a', 'b', 'c', 'd', 'e', 'f']],
      ['_key descending', 'sort=-_key', ['f', 'e', 'd', 'c', 'b', 'a']],
      ['a numeric field ascending', 'filter[price_gte]=0&sort=price', ['f', 'a', 'b', 'c']],
      ['a numeric field descending', 'filter[price_gte]=0&sort=-price', ['c', 'b', 'a', 'f']],
      ['several fields', 'sort=group,-_key', ['e', 'c', 'a', 'f', 'd', 'b']],
      ['a nested field', 'filter[address.floor_gte]=0&sort=address.floor', ['b', 'c', 'a']],
      ['a nested field descending', 'filter[address.floor_gte]=0&sort=-address.floor', ['a', 'c', 'b']],
    ])('sorts by %s', async (_name, query, expected) => {
      expect(await keys(c, query)).toEqual(expected);
    });

    it('sorts by _version', async () => {
      await request(ds.http)
        .put(`${c.doc()}/c`)
        .set(c.auth)
        .send(docBody('c', { group: 'x', price: 100.5, address: { floor: 2 } }))
        .expect(200);
      const sorted = await keys(c, 'sort=-_version,_key');
      expect(sorted).toEqual(['c', 'a', 'b', 'd', 'e', 'f']);
    });

    it('defaults to creation order', async () => {
      const fresh = await ds.newClient();
      for (const key of ['zeta', 'mu', 'alpha']) {
        await request(ds.http).post(`${fresh.doc()}/${key}`).set(fresh.auth).send(docBody(key, {})).expect(201);
      }
      expect(await keys(fresh, '')).toEqual(['zeta', 'mu', 'alpha']);
    });

    it.each([['sort=a,,b'], ['sort=a,b,c,d,e,f'], ['sort=-'], ['sort=a&sort=b'], ['sort=na%00me']])('answers 422 for %s', async (query) => {
      const res = await list(c, query).expect(422);
      expect(res.body.errors).toEqual({ sort: [expect.any(String)] });
    });
  });

  describe('deleted', () => {
    it('excludes soft-deleted and expired documents unless deleted=true', async () => {
      const c = await ds.newClient();
      await bulk(c, [
        { key: 'live', data: {} },
        { key: 'gone', data: {} },
        { key: 'old', data: {} },
      ]);
      await request(ds.http).delete(`${c.doc()}/gone`).set(c.auth).expect(200);
      await ds.get(Sql).rows(`UPDATE docstore.documents SET expires_at = now() - interval '1 second' WHERE key = $1 AND client_id = $2`, ['old', c.id]);
      const live = await list(c, 'sort=_key').expect(200);
      expect(live.body.data.map((d: Doc) => d.key)).toEqual(['live']);
      expect(live.body.total).toBe(1);
      const all = await list(c, 'sort=_key&deleted=true').expect(200);
      expect(all.body.total).toBe(3);
      expect(all.body.data.map((d: Doc) => [d.key, d.deleted_at === null])).toEqual([
        ['gone', false],
        ['live', true],
        ['old', true],
      ]);
      expect(await keys(c, 'deleted=1&sort=_key')).toEqual(['gone', 'live', 'old']);
      expect(await keys(c, 'deleted=false&sort=_key')).toEqual(['live']);
      expect((await list(c, 'deleted=maybe').expect(422)).body.errors).toHaveProperty(['deleted']);
    });
  });

  describe('pagination', () => {
    let c: Client;
    let base: string;
    const HOST = 'docs.test';
    const page = (query: string) => list(c, query).set('Host', HOST);

    beforeAll(async () => {
      c = await ds.newClient();
      base = `http://${HOST}${c.doc()}`;
      await bulk(
        c,
        Array.from({ length: 40 }, (_, i) => ({ key: `doc-${String(i).padStart(2, '0')}`, data: { n: i } })),
      );
    });

    it('renders the full Laravel envelope', async () => {
      const res = await page('per_page=15').expect(200);
      const url = (n: number) => `${base}?per_page=15&page=${n}`;
      expect(res.body).toEqual({
        current_page: 1,
        data: expect.any(Array),
        first_page_url: url(1),
        from: 1,
        last_page: 3,
        last_page_url: url(3),
        links: [
          { url: null, label: PREV, active: false },
          { url: url(1), label: '1', active: true },
          { url: url(2), label: '2', active: false },
          { url: url(3), label: '3', active: false },
          { url: url(2), label: NEXT, active: false },
        ],
        next_page_url: url(2),
        path: base,
        per_page: 15,
        prev_page_url: null,
        to: 15,
        total: 40,
      });
      expect(res.body.data).toHaveLength(15);
    });

    it('pages through every document exactly once', async () => {
      const second = await page('page=2&per_page=15').expect(200);
      const url = (n: number) => `${base}?per_page=15&page=${n}`;
      expect(second.body).toMatchObject({ current_page: 2, from: 16, to: 30, prev_page_url: url(1), next_page_url: url(3) });
      expect(second.body.links[0]).toEqual({ url: url(1), label: PREV, active: false });
      expect(second.body.links.filter((l: { active: boolean }) => l.active)).toEqual([{ url: url(2), label: '2', active: true }]);
      const third = await page('per_page=15&page=3').expect(200);
      expect(third.body).toMatchObject({ current_page: 3, from: 31, to: 40, prev_page_url: url(2), next_page_url: null });
      expect(third.body.links.at(-1)).toEqual({ url: null, label: NEXT, active: false });
      const first = await page('per_page=15').expect(200);
      const all = [first, second, third].flatMap((r) => r.body.data.map((d: Doc) => d.key));
      expect(all).toHaveLength(40);
      expect(new Set(all).size).toBe(40);
    });

    it('defaults to 15 per page and accepts 100', async () => {
      const res = await page('').expect(200);
      expect(res.body).toMatchObject({ per_page: 15, last_page: 3, first_page_url: `${base}?page=1` });
      const big = await page('per_page=100').expect(200);
      expect(big.body).toMatchObject({ per_page: 100, last_page: 1, from: 1, to: 40, next_page_url: null });
      expect(big.body.data).toHaveLength(40);
    });

    it('answers a page beyond the last with no data and null from/to', async () => {
      const res = await page('per_page=15&page=4').expect(200);
      expect(res.body).toMatchObject({ current_page: 4, data: [], from: null, to: null, last_page: 3, total: 40, next_page_url: null });
    });

    it.each([
      ['per_page=0', 'per_page'],
      ['per_page=101', 'per_page'],
      ['per_page=abc', 'per_page'],
      ['per_page=1.5', 'per_page'],
      ['per_page=-1', 'per_page'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
    ])('answers 422 for %s', async (query, field) => {
      const res = await page(query).expect(422);
      expect(res.body).toEqual({ message: expect.any(String), errors: { [field]: [expect.any(String)] } });
    });

    it('keeps filters and per_page in every link, page last', async () => {
      const res = await page('filter[n_gte]=10&per_page=5&page=2').expect(200);
      expect(res.body).toMatchObject({ total: 30, last_page: 6, from: 6, to: 10 });
      for (const link of [res.body.first_page_url, res.body.last_page_url, res.body.next_page_url, res.body.prev_page_url]) {
        const parsed = new URL(link);
        expect(`${parsed.origin}${parsed.pathname}`).toBe(base);
        expect([...parsed.searchParams.keys()]).toEqual(['filter[n_gte]', 'per_page', 'page']);
        expect(parsed.searchParams.get('filter[n_gte]')).toBe('10');
        expect(parsed.searchParams.get('per_page')).toBe('5');
      }
      expect(new URL(res.body.next_page_url).searchParams.get('page')).toBe('3');
      expect(new URL(res.body.last_page_url).searchParams.get('page')).toBe('6');
      const followed = await request(ds.http)
        .get(new URL(res.body.next_page_url).pathname + new URL(res.body.next_page_url).search)
        .set(c.auth)
        .expect(200);
      expect(followed.body).toMatchObject({ current_page: 3, from: 11, to: 15, total: 30 });
      expect(followed.body.data.every((d: Doc) => (d.data.n as number) >= 10)).toBe(true);
    });

    it('uses the request Host header in URLs', async () => {
      const res = await list(c, 'per_page=20').set('Host', 'other.example:8080').expect(200);
      expect(res.body.path).toBe(`http://other.example:8080${c.doc()}`);
      expect(res.body.next_page_url).toBe(`http://other.example:8080${c.doc()}?per_page=20&page=2`);
    });

    const labels = (res: { body: { links: Array<{ label: string }> } }) => res.body.links.map((l) => l.label);
    const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

    it('shows every page link when there are fewer than 14 pages', async () => {
      const res = await page('per_page=4').expect(200);
      expect(res.body.last_page).toBe(10);
      expect(labels(res)).toEqual([PREV, ...range(1, 10), NEXT]);
    });

    it('windows 14 pages with "..." as Laravel does', async () => {
      const res = await page('per_page=3').expect(200);
      expect(res.body.last_page).toBe(14);
      expect(labels(res)).toEqual([PREV, ...range(1, 10), '...', '13', '14', NEXT]);
    });

    it('windows 20 pages with "..." entries near the start, middle and end', async () => {
      const first = await page('per_page=2').expect(200);
      expect(first.body.last_page).toBe(20);
      expect(labels(first)).toEqual([PREV, ...range(1, 10), '...', '19', '20', NEXT]);
      expect(first.body.links[11]).toEqual({ url: null, label: '...', active: false });
      expect(first.body.links[12]).toEqual({ url: `${base}?per_page=2&page=19`, label: '19', active: false });

      const middle = await page('per_page=2&page=10').expect(200);
      expect(labels(middle)).toEqual([PREV, '1', '2', '...', ...range(7, 13), '...', '19', '20', NEXT]);
      expect(middle.body.links.filter((l: { label: string }) => l.label === '...')).toEqual([
        { url: null, label: '...', active: false },
        { url: null, label: '...', active: false },
      ]);
      expect(middle.body.links.find((l: { active: boolean }) => l.active)).toEqual({ url: `${base}?per_page=2&page=10`, label: '10', active: true });

      const last = await page('per_page=2&page=20').expect(200);
      expect(labels(last)).toEqual([PREV, '1', '2', '...', ...range(11, 20), NEXT]);
      expect(last.body.links.at(-1)).toEqual({ url: null, label: NEXT, active: false });

      const nearEnd = await page('per_page=2&page=13').expect(200);
      expect(labels(nearEnd)).toEqual([PREV, '1', '2', '...', ...range(10, 16), '...', '19', '20', NEXT]);
      const tooCloseToEnd = await page('per_page=2&page=14').expect(200);
      expect(labels(tooCloseToEnd)).toEqual([PREV, '1', '2', '...', ...range(11, 20), NEXT]);
    });
  });

  describe('with PUBLIC_BASE_URL', () => {
    let other: Docstore;

    beforeAll(async () => {
      other = await startDocstore({ PUBLIC_BASE_URL: 'https://api.example.com' });
    });
    afterAll(() => other.close());

    it('builds every URL on the public base URL, whatever the Host header', async () => {
      const c = await other.newClient();
      await request(other.http)
        .post(`${c.doc()}/bulk`)
        .set(c.auth)
        .send({
          documents: [
            { key: 'a', data: {} },
            { key: 'b', data: {} },
          ],
        })
        .expect(200);
      const res = await request(other.http).get(`${c.doc()}?per_page=1`).set(c.auth).set('Host', 'internal:3001').expect(200);
      const url = (n: number) => `https://api.example.com${c.doc()}?per_page=1&page=${n}`;
      expect(res.body).toMatchObject({
        path: `https://api.example.com${c.doc()}`,
        first_page_url: url(1),
        last_page_url: url(2),
        next_page_url: url(2),
        prev_page_url: null,
      });
      expect(res.body.links.map((l: { url: string | null }) => l.url)).toEqual([null, url(1), url(2), url(2)]);
    });
  });
});
