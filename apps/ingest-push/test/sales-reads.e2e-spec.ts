import { Readable } from 'node:stream';
import { eventually } from '@app/testkit';
import fc from 'fast-check';
import request from 'supertest';
import { csvText, saleCells } from './support/sale-fixtures';
import { SALES_PATH, startIngest, upload, type IngestApp } from './support/sales-test';

const CSV = { 'Content-Type': 'text/csv' };

interface Page {
  data: Array<Record<string, string | number | null>>;
  next_cursor: string | null;
}

interface SummaryRow {
  key: string | null;
  orders: number;
  lines: number;
  quantity: number;
  revenue: string;
  discount: string;
  average_ticket: string;
}

/** A line of a small varied data set: its date, store, product, status and customer vary with `n`. */
function line(n: number, overrides: Record<string, string> = {}): Record<string, string> {
  const day = String(1 + (n % 28)).padStart(2, '0');
  return saleCells(n, {
    OrderId: `O-${Math.floor(n / 2)}`,
    ProductId: `P-${n % 5}-${n}`,
    OrderDate: `2026-${n % 2 === 0 ? '10' : '11'}-${day}T${String(n % 24).padStart(2, '0')}:00:00.000Z`,
    StoreId: `S-${n % 3}`,
    OrderStatus: n % 4 === 0 ? 'cancelled' : 'paid',
    CustomerCPF_CNPJ: n % 3 === 0 ? '529.982.247-25' : n % 3 === 1 ? '52998224725' : '11.222.333/0001-81',
    ...overrides,
  });
}

/** The lines newest first, as the service orders them (OrderDate, then OrderId and ProductId, descending). */
function newestFirst(rows: Array<Record<string, string>>): Array<Record<string, string>> {
  const key = (r: Record<string, string>) => [r.OrderDate, r.OrderId, r.ProductId];
  return [...rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i] ? 1 : -1;
    return 0;
  });
}

describe('GET /DataInserterSales/api/sales (lines, filters, cursor, CSV export)', () => {
  let t: IngestApp;
  let key: string;
  let ingestionA: string;
  const rows = Array.from({ length: 40 }, (_, n) => line(n));

  const get = (path: string, k = key) => request(t.http).get(`${SALES_PATH}${path}`).set('apiKey', k);
  const all = async (query: string, k = key, limit = 7): Promise<Page['data']> => {
    const out: Page['data'] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, k).expect(200);
      const page = res.body as Page;
      out.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return out;
  };

  beforeAll(async () => {
    t = await startIngest({ RATE_LIMIT_PER_MINUTE: '1000000' });
    ({ key } = await t.apiKey());
    const first = await upload(t.port, { apiKey: key, ...CSV }, csvText(rows.slice(0, 30)));
    ingestionA = first.json<{ ingestion_id: string }>().ingestion_id;
    expect(first.status).toBe(201);
    expect((await upload(t.port, { apiKey: key, ...CSV }, csvText(rows.slice(30)))).status).toBe(201);
  });
  afterAll(() => t.close());

  it('lists every line newest OrderDate first, each as the Sale it was uploaded as', async () => {
    const res = await get('').expect(200);
    const page = res.body as Page;
    expect(page.next_cursor).toBeNull();
    expect(page.data.map((r) => r.ProductId)).toEqual(newestFirst(rows).map((r) => r.ProductId));
    expect(page.data.find((r) => r.ProductId === rows[3].ProductId)).toEqual({
      ...rows[3],
      OrderTotal: 120.5,
      OrderTotalQuantity: 3,
      OrderTotalWeight: 1.5,
      OrderDiscount: 0.25,
      ProductQuantity: 2,
      ProductPrice: 40.25,
      ShippingPrice: 9.9,
      CustomerBirth: '1990-02-28T00:00:00.000000Z',
    });
  });

  it.each([
    ['from=2026-11-01', (r: Record<string, string>) => r.OrderDate >= '2026-11-01'],
    ['to=2026-10-15T00:00:00Z', (r: Record<string, string>) => r.OrderDate < '2026-10-15'],
    ['from=2026-10-10T03:00:00%2B03:00&to=2026-11-05', (r: Record<string, string>) => r.OrderDate >= '2026-10-10T00' && r.OrderDate < '2026-11-05'],
    ['store=S-1', (r: Record<string, string>) => r.StoreId === 'S-1'],
    ['product=P-2-7', (r: Record<string, string>) => r.ProductId === 'P-2-7'],
    ['order=O-5', (r: Record<string, string>) => r.OrderId === 'O-5'],
    ['status=cancelled', (r: Record<string, string>) => r.OrderStatus === 'cancelled'],
    ['customer=52998224725', (r: Record<string, string>) => r.CustomerCPF_CNPJ.replace(/\D/g, '') === '52998224725'],
    ['customer=529.982.247-25', (r: Record<string, string>) => r.CustomerCPF_CNPJ.replace(/\D/g, '') === '52998224725'],
    ['customer=11222333%2F0001-81', (r: Record<string, string>) => r.CustomerCPF_CNPJ.startsWith('11.')],
    ['store=S-0&status=paid&from=2026-11-01', (r: Record<string, string>) => r.StoreId === 'S-0' && r.OrderStatus === 'paid' && r.OrderDate >= '2026-11'],
  ])('filters by %s, through every page', async (query, keep) => {
    const found = await all(query);
    const expected = newestFirst(rows.filter(keep)).map((r) => r.ProductId);
    expect(expected.length).toBeGreaterThan(0);
    expect(found.map((r) => r.ProductId)).toEqual(expected);
  });

  it('filters by ingestion: the lines that ingestion last wrote', async () => {
    const found = await all(`ingestion=${ingestionA}`);
    expect(found.map((r) => r.ProductId).sort()).toEqual(
      rows
        .slice(0, 30)
        .map((r) => r.ProductId)
        .sort(),
    );
  });

  it('keeps its cursor stable while uploads add newer and older lines: every line present at the start comes once, in order', async () => {
    const { key: k } = await t.apiKey();
    const base = Array.from({ length: 60 }, (_, n) => line(n, { OrderId: `B-${n}` }));
    expect((await upload(t.port, { apiKey: k, ...CSV }, csvText(base))).status).toBe(201);
    const seen: Page['data'] = [];
    let cursor: string | null = null;
    let extra = 0;
    do {
      // Each page races an upload of 10 new lines dated around the whole range.
      const fresh = Array.from({ length: 10 }, (_, i) => line(extra * 10 + i, { OrderId: `X-${extra}-${i}` }));
      extra++;
      const query: string = `?limit=9${cursor ? `&cursor=${cursor}` : ''}`;
      const [page]: [Page, void] = await Promise.all([
        get(query, k)
          .expect(200)
          .then((res) => res.body as Page),
        upload(t.port, { apiKey: k, ...CSV }, csvText(fresh)).then((r) => expect(r.status).toBe(201)),
      ]);
      seen.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    const ids = seen.map((r) => `${r.OrderId}|${r.ProductId}`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(seen.filter((r) => String(r.OrderId).startsWith('B-')).map((r) => r.ProductId)).toEqual(newestFirst(base).map((r) => r.ProductId));
    const order = seen.map((r) => `${r.OrderDate}|${r.OrderId}|${r.ProductId}`);
    expect(order).toEqual([...order].sort().reverse());
  });

  it('exports CSV in the upload format (streamed, every page); uploading the export again changes nothing', async () => {
    const { key: k, accountId } = await t.apiKey();
    const tricky = [
      line(1, { ProductName: 'Café; "quoted"\nand a newline', ProductBrand: '', OrderTotal: '10.0', ProductPrice: '1.0e21', ShippingPrice: '-0.000001' }),
      line(2, { CustomerBirth: '1990-02-28T23:59:59.123456-03:00', StoreName: '  spaced  ', CustomerGender: '' }),
      ...Array.from({ length: 30 }, (_, n) => line(n + 3)),
    ];
    expect((await upload(t.port, { apiKey: k, ...CSV }, csvText(tricky))).status).toBe(201);
    const dump = () =>
      t.sql.rows<Record<string, unknown>>(
        `SELECT (to_jsonb(s) - 'ingestion_id' - 'updated_at' - 'created_at')::text AS row FROM ingest_push.sales s WHERE account_id = $1 ORDER BY order_id, product_id`,
        [accountId],
      );
    const before = await dump();
    const res = await get('', k).set('Accept', 'text/csv').buffer(true).expect(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const text = res.text;
    expect(text.split('\n')[0]).toBe(Object.keys(saleCells(0)).join(';'));
    const again = await upload(t.port, { apiKey: k, ...CSV }, text);
    expect(again.json()).toMatchObject({ status: 'completed', received: tricky.length, inserted: 0, updated: tricky.length, rejected: 0 });
    expect(await dump()).toEqual(before);
    // Filters apply to the export too.
    const store = await get('?store=S-1', k).set('Accept', 'text/csv').buffer(true).expect(200);
    expect(store.text.match(/;S-1;/g)?.length).toBe(tricky.filter((r) => r.StoreId === 'S-1').length);
  });

  it('refuses bad parameters with 422 naming them, and never answers 5xx to any value', async () => {
    for (const [query, field] of [
      ['from=2026-02-30', 'from'],
      ['to=yesterday', 'to'],
      ['store=a&store=b', 'store'],
      ['customer=abc', 'customer'],
      ['ingestion=nope', 'ingestion'],
      ['cursor=abc', 'cursor'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
    ]) {
      const res = await get(`?${query}`).expect(422);
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    const names = ['from', 'to', 'store', 'product', 'order', 'customer', 'status', 'ingestion', 'cursor', 'limit'];
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...names), fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.array(fc.string(), { maxLength: 2 }))),
        async (params) => {
          const res = await get('').query(params);
          expect([200, 422]).toContain(res.status);
          const sum = await get('/summary').query({ ...params, group_by: 'day' });
          expect([200, 422]).toContain(sum.status);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('shows an account only its own lines, whatever the filters', async () => {
    const { key: other } = await t.apiKey();
    expect((await get('', other).expect(200)).body).toEqual({ data: [], next_cursor: null });
    await fc.assert(
      fc.asyncProperty(
        fc.record(
          {
            store: fc.constantFrom('S-0', 'S-1', 'S-2'),
            customer: fc.constantFrom('52998224725', '11.222.333/0001-81'),
            status: fc.constantFrom('paid', 'cancelled'),
            ingestion: fc.constant(ingestionA),
            from: fc.constantFrom('2026-01-01', '2026-11-01'),
          },
          { requiredKeys: [] },
        ),
        async (params) => {
          expect((await get('', other).query(params).expect(200)).body.data).toEqual([]);
          expect(
            (
              await get('/summary', other)
                .query({ ...params, group_by: 'store' })
                .expect(200)
            ).body.data,
          ).toEqual([]);
          expect((await get('', other).query(params).set('Accept', 'text/csv').buffer(true).expect(200)).text.split('\n').length).toBe(2);
        },
      ),
      { numRuns: 20 },
    );
  });
});

/** Exact cents, as the oracle of the summaries: the test sums integers, the service numerics. */
const cents = (v: bigint) => `${v < 0n ? '-' : ''}${(v < 0n ? -v : v) / 100n}.${String((v < 0n ? -v : v) % 100n).padStart(2, '0')}`;
/** Rounds a ratio of cents half away from zero, as PostgreSQL's round() does. */
const ratio = (num: bigint, den: bigint) => {
  const q = (num * 2n + (num >= 0n ? den : -den)) / (2n * den);
  return cents(q);
};

describe('GET /DataInserterSales/api/sales/summary', () => {
  let t: IngestApp;
  beforeAll(async () => {
    // Rollups rebuilt as soon as an upload ends (the quiet period has its own test below).
    t = await startIngest({ RATE_LIMIT_PER_MINUTE: '1000000', SALES_ROLLUP_QUIET_MS: '0' });
  });
  afterAll(() => t.close());

  const GROUPS: Record<string, (r: Record<string, string>) => string | null> = {
    day: (r) => r.OrderDate.slice(0, 10),
    month: (r) => r.OrderDate.slice(0, 7),
    store: (r) => r.StoreId,
    product: (r) => r.ProductId,
    category: (r) => r.ProductCategory || null,
    brand: (r) => r.ProductBrand || null,
    state: (r) => r.StoreState || null,
    payment: (r) => r.PaymentMethods || null,
  };

  /** Cents of an amount as the tests write it (two decimals, maybe negative; empty: none). */
  const centsOf = (text: string) => (text === '' ? null : BigInt(text.replace('.', '')));

  /**
   * The oracle: the totals per group of `rows` (stored lines, amounts with two decimals) within [from, to), computed
   * from the lines alone: an order counts once per UTC day and group, with its lines' largest OrderDiscount.
   */
  const totalsOf = (rows: Iterable<Record<string, string>>, group: string, bounds: { from: string; to: string } | null): SummaryRow[] => {
    const groups = new Map<string | null, { orders: Map<string, bigint>; lines: number; quantity: number; revenue: bigint }>();
    for (const r of rows) {
      if (bounds !== null && (r.OrderDate < bounds.from || r.OrderDate >= bounds.to)) continue;
      const k = GROUPS[group](r);
      const g = groups.get(k) ?? { orders: new Map(), lines: 0, quantity: 0, revenue: 0n };
      groups.set(k, g);
      const q = r.ProductQuantity === '' ? 1 : Number(r.ProductQuantity);
      g.lines++;
      g.quantity += q;
      g.revenue += centsOf(r.ProductPrice)! * BigInt(q);
      const d = centsOf(r.OrderDiscount) ?? 0n;
      const order = `${r.OrderDate.slice(0, 10)}|${r.OrderId}`;
      g.orders.set(order, g.orders.has(order) && g.orders.get(order)! > d ? g.orders.get(order)! : d);
    }
    return [...groups.entries()].map(([k, g]) => ({
      key: k,
      orders: g.orders.size,
      lines: g.lines,
      quantity: g.quantity,
      revenue: cents(g.revenue),
      discount: cents([...g.orders.values()].reduce((a, b) => a + b, 0n)),
      average_ticket: ratio(g.revenue, BigInt(g.orders.size)),
    }));
  };
  const byKey = (a: SummaryRow, b: SummaryRow) => String(a.key).localeCompare(String(b.key));

  /** Resolves once the refresher has rebuilt every day the account's uploads changed. */
  const rebuilt = (accountId: string) =>
    eventually(async () => {
      const dirty = await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales_rollup_dirty_days WHERE account_id = $1', [accountId]);
      return dirty!.n === 0 ? true : undefined;
    });

  it('equals the same totals computed exactly from the raw lines of random files, before and after the rollups are rebuilt (later lines win)', async () => {
    const amount = (min: number) => fc.integer({ min, max: 2_000_000 }).map((c) => ({ c: BigInt(c), text: cents(BigInt(c)) }));
    const sale = fc.record({
      order: fc.integer({ min: 1, max: 8 }),
      product: fc.integer({ min: 1, max: 6 }),
      day: fc.integer({ min: 1, max: 60 }),
      price: amount(-500),
      quantity: fc.option(fc.integer({ min: 1, max: 20 })),
      discount: fc.option(amount(0)),
      category: fc.constantFrom('', 'Food', 'Toys'),
      brand: fc.constantFrom('', 'Acme', 'Bolt'),
      state: fc.constantFrom('', 'SP', 'RJ'),
      payment: fc.constantFrom('', 'pix', 'pix;card'),
    });
    type Sale = typeof sale extends fc.Arbitrary<infer S> ? S : never;
    // A range from a day after 2026-10-01 (at midnight or within the day) for some days and hours; or none.
    const span = fc.option(
      fc.record({
        day: fc.integer({ min: 0, max: 120 }),
        hour: fc.constantFrom(0, 0, 5, 13),
        days: fc.integer({ min: 0, max: 60 }),
        hours: fc.constantFrom(0, 7, 19),
      }),
    );
    const at = (days: number, hours: number) => new Date(Date.UTC(2026, 9, 1) + days * 86_400_000 + hours * 3_600_000).toISOString();
    // An order has one store; its lines may fall on different days: an order counts once per UTC day and group it has lines in.
    const cellsOf = (s: Sale) =>
      saleCells(0, {
        OrderId: `O-${s.order}`,
        ProductId: `P-${s.product}`,
        OrderDate: at(s.order * 7 + s.day, s.order),
        StoreId: `S-${s.order % 3}`,
        ProductPrice: s.price.text,
        ProductQuantity: s.quantity === null ? '' : String(s.quantity),
        OrderDiscount: s.discount === null ? '' : s.discount.text,
        ProductCategory: s.category,
        ProductBrand: s.brand,
        StoreState: s.state,
        PaymentMethods: s.payment,
      });
    await fc.assert(
      fc.asyncProperty(
        fc.array(sale, { minLength: 1, maxLength: 25 }),
        fc.array(sale, { maxLength: 10 }),
        fc.constantFrom(...Object.keys(GROUPS)),
        span,
        async (first, second, group, range) => {
          const { key, accountId } = await t.apiKey();
          expect((await upload(t.port, { apiKey: key, ...CSV }, csvText(first.map(cellsOf)))).status).toBe(201);
          // The second file updates lines whose rollups are built: a line that moves to another day leaves its old day.
          await rebuilt(accountId);
          if (second.length > 0) expect((await upload(t.port, { apiKey: key, ...CSV }, csvText(second.map(cellsOf)))).status).toBe(201);
          const bounds = range === null ? null : { from: at(range.day, range.hour), to: at(range.day + range.days, range.hour + range.hours) };
          // The oracle: the last occurrence of each line, within the range, per group and order-day.
          const lines = new Map([...first, ...second].map((s) => [`${s.order}|${s.product}`, cellsOf(s)]));
          const expected = totalsOf(lines.values(), group, bounds);
          const check = async () => {
            const res = await request(t.http)
              .get(`${SALES_PATH}/summary`)
              .query({ group_by: group, limit: '1000', ...bounds })
              .set('apiKey', key)
              .expect(200);
            expect((res.body.data as SummaryRow[]).sort(byKey)).toEqual(expected.sort(byKey));
            if (bounds === null) expect(res.body).toMatchObject({ group_by: group, from: null, to: null });
          };
          // Right after the upload (its days dirty, or some rebuilt already), then from the rebuilt rollups.
          await check();
          await rebuilt(accountId);
          await check();
        },
      ),
      { numRuns: 20 },
    );
  });

  it('reads ranges of whole months and partial edges from the month blocks exactly as from the lines, after a load, an erasure and a reload', async () => {
    const { key, accountId } = await t.apiKey();
    // ~140 days from 2026-01-05 in orders of 3 lines; every 7th order has a line on the next day.
    const day = (d: number, hour: number) => new Date(Date.UTC(2026, 0, 5) + d * 86_400_000 + hour * 3_600_000).toISOString();
    const cellsAt = (n: number, overrides: Record<string, string> = {}) => {
      const order = Math.floor(n / 3);
      return saleCells(n, {
        OrderId: `O-${order}`,
        ProductId: `P-${(n * 7) % 23}`,
        OrderDate: day(Math.floor((order * 7) / 5) + (order % 7 === 0 && n % 3 === 2 ? 1 : 0), order % 24),
        StoreId: `S-${order % 4}`,
        ProductPrice: cents(BigInt(((n * 37) % 5000) - 100)),
        ProductQuantity: n % 5 === 0 ? '' : String(1 + (n % 4)),
        OrderDiscount: n % 6 === 0 ? '' : cents(BigInt(n % 300)),
        ProductCategory: ['Food', 'Toys', ''][n % 3],
        ProductBrand: ['Acme', 'Bolt', 'Core', ''][order % 4],
        StoreState: ['SP', 'RJ', ''][order % 3],
        PaymentMethods: ['pix', 'pix;card', ''][n % 3],
        CustomerCPF_CNPJ: n % 2 === 0 ? '529.982.247-25' : '11.222.333/0001-81',
        ...overrides,
      });
    };
    const stored = new Map<string, Record<string, string>>();
    const load = async (rows: Array<Record<string, string>>) => {
      expect((await upload(t.port, { apiKey: key, ...CSV }, csvText(rows))).status).toBe(201);
      for (const r of rows) stored.set(`${r.OrderId}|${r.ProductId}`, r);
    };
    const ranges = [
      { from: '2026-01-13T05:00:00.000Z', to: '2026-05-11T17:30:00.000Z' },
      { from: '2026-01-20T00:00:00.000Z', to: '2026-03-07T00:00:00.000Z' },
      { from: '2026-02-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' },
      { from: '2026-03-01T00:00:00.000Z', to: '2026-04-01T00:00:00.000Z' },
      { from: '2026-03-09T00:00:00.000Z', to: '2026-03-25T00:00:00.000Z' },
    ];
    const checkAll = async () => {
      for (const bounds of ranges) {
        for (const group of Object.keys(GROUPS)) {
          const res = await request(t.http)
            .get(`${SALES_PATH}/summary`)
            .query({ group_by: group, limit: '1000', ...bounds })
            .set('apiKey', key)
            .expect(200);
          expect({ group, bounds, data: (res.body.data as SummaryRow[]).sort(byKey) }).toEqual({
            group,
            bounds,
            data: totalsOf(stored.values(), group, bounds).sort(byKey),
          });
        }
      }
    };
    await load(Array.from({ length: 300 }, (_, n) => cellsAt(n)));
    await rebuilt(accountId);
    const periods = await t.sql.one<{ p: string[] }>(
      'SELECT array_agg(DISTINCT period ORDER BY period) AS p FROM ingest_push.sales_daily_rollups WHERE account_id = $1',
      [accountId],
    );
    expect(periods!.p).toEqual(['d16', 'd2', 'd4', 'd8', 'day', 'month']);
    await checkAll();

    // An erasure changes no amount and no grouped field: the rollups stay right, nothing to rebuild.
    await request(t.http).delete(`${SALES_PATH}/customers/52998224725`).set('apiKey', key).expect(200);
    const dirty = await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales_rollup_dirty_days WHERE account_id = $1', [accountId]);
    expect(dirty!.n).toBe(0);
    await checkAll();

    // A month whose row a replica of the version before summed (month rows only, not `with_blocks`) is read from its days,
    // whatever its blocks hold; the refresher finds it and sums its blocks again.
    const march = `account_id = $1 AND day >= '2026-03-01' AND day < '2026-04-01'`;
    await t.sql.transaction(async (tx) => {
      await tx.rows(`UPDATE ingest_push.sales_daily_rollups SET with_blocks = false WHERE ${march} AND period = 'month'`, [accountId]);
      await tx.rows(
        `UPDATE ingest_push.sales_daily_rollups SET revenue = revenue + 1000, orders = orders + 1 WHERE ${march} AND period IN ('d2', 'd4', 'd8', 'd16')`,
        [accountId],
      );
    });
    await checkAll();
    await eventually(async () => {
      const summed = await t.sql.one<{ n: number }>(
        `SELECT count(*)::int AS n FROM ingest_push.sales_daily_rollups WHERE ${march} AND dimension = 'day' AND period = 'month' AND with_blocks`,
        [accountId],
      );
      return summed!.n === 1 ? true : undefined;
    });
    await checkAll();

    // A reload: new prices, lines moved to another day (across month ends too), new lines; right after it, then rebuilt.
    await load([
      ...Array.from({ length: 40 }, (_, i) => cellsAt(i * 7, { ProductPrice: cents(BigInt(i * 113 - 50)) })),
      ...Array.from({ length: 20 }, (_, i) => cellsAt(i * 13 + 1, { OrderDate: day(i * 6 + 20, 23) })),
      ...Array.from({ length: 30 }, (_, i) => cellsAt(300 + i)),
    ]);
    await checkAll();
    await rebuilt(accountId);
    await checkAll();
  });

  it('orders time groups in time and the others by revenue, within from/to, top `limit`', async () => {
    const { key } = await t.apiKey();
    const rows = [1, 2, 3, 4, 5, 6].map((n) =>
      saleCells(n, { OrderDate: `2026-0${n}-15T12:00:00.000Z`, ProductPrice: `${n * 10}.00`, ProductQuantity: '1', ProductId: `P-${n % 3}` }),
    );
    await upload(t.port, { apiKey: key, ...CSV }, csvText(rows));
    const sum = (q: Record<string, string>) => request(t.http).get(`${SALES_PATH}/summary`).query(q).set('apiKey', key).expect(200);
    expect((await sum({ group_by: 'month', from: '2026-02-01', to: '2026-05-15T12:00:00Z' })).body.data.map((r: SummaryRow) => r.key)).toEqual([
      '2026-02',
      '2026-03',
      '2026-04',
    ]);
    expect((await sum({ group_by: 'product', limit: '2' })).body.data).toEqual([
      { key: 'P-0', orders: 2, lines: 2, quantity: 2, revenue: '90.00', discount: '0.50', average_ticket: '45.00' },
      { key: 'P-2', orders: 2, lines: 2, quantity: 2, revenue: '70.00', discount: '0.50', average_ticket: '35.00' },
    ]);
    const bad = await request(t.http).get(`${SALES_PATH}/summary`).query({ group_by: 'week' }).set('apiKey', key).expect(422);
    expect(Object.keys(bad.body.errors)).toEqual(['group_by']);
  });
});

describe('the rollup refresher and an account that keeps uploading (SALES_ROLLUP_QUIET_MS)', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest({ SALES_ROLLUP_QUIET_MS: '1500', SALES_ROLLUP_INTERVAL_MS: '100' });
  });
  afterAll(() => t.close());

  it("leaves an account's days dirty while another of its uploads runs, and rebuilds them once it has been quiet", async () => {
    const { key, accountId } = await t.apiKey();
    const dirtyCount = async () =>
      (await t.sql.one<{ n: number }>('SELECT count(*)::int AS n FROM ingest_push.sales_rollup_dirty_days WHERE account_id = $1', [accountId]))!.n;
    expect((await upload(t.port, { apiKey: key, ...CSV }, csvText([saleCells(1), saleCells(2)]))).status).toBe(201);
    // A second part, sent slowly: its ingestion runs while the refresher looks every 100 ms.
    const text = csvText([saleCells(3), saleCells(4, { OrderDate: '2026-01-02T10:00:00.000Z' })]);
    const body = new Readable({ read() {} });
    body.push(text.slice(0, text.length >> 1));
    const second = upload(t.port, { apiKey: key, ...CSV }, body);
    const running = `SELECT count(*)::int AS n FROM ingest_push.sales_ingestions WHERE account_id = $1 AND status = 'running'`;
    await eventually(async () => ((await t.sql.one<{ n: number }>(running, [accountId]))!.n === 1 ? true : undefined));
    // Twenty of the refresher's looks while the part is held: without the quiet rule the first day would be rebuilt.
    for (let look = 0; look < 20; look++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await dirtyCount()).toBeGreaterThan(0);
    }
    body.push(text.slice(text.length >> 1));
    body.push(null);
    expect((await second).status).toBe(201);
    const rebuiltAt = await eventually(async () =>
      (await dirtyCount()) === 0 ? (await t.sql.one<{ at: Date }>('SELECT clock_timestamp() AS at'))!.at : undefined,
    );
    const ended = (await t.sql.one<{ at: Date }>('SELECT max(finished_at) AS at FROM ingest_push.sales_ingestions WHERE account_id = $1', [accountId]))!.at;
    expect(rebuiltAt.getTime() - ended.getTime()).toBeGreaterThanOrEqual(1500);
    const summary = await request(t.http).get(`${SALES_PATH}/summary?group_by=day`).set('apiKey', key).expect(200);
    expect(summary.body.data.map((d: { lines: number }) => d.lines).reduce((a: number, b: number) => a + b, 0)).toBe(4);
  });
});
