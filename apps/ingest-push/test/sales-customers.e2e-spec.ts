import fc from 'fast-check';
import request from 'supertest';
import { eventually, schemaText } from '@app/testkit';
import { csvText, saleCells } from './support/sale-fixtures';
import { startIngestChild, type IngestChild } from './support/ingest-child';
import { SALES_PATH, startIngest, upload, type IngestApp } from './support/sales-test';

const CSV = { 'Content-Type': 'text/csv' };
const CUSTOMER = {
  CustomerCPF_CNPJ: '529.982.247-25',
  CustomerName: 'Maria Erasable',
  CustomerPhone: '+55 11 98888-1234',
  CustomerEmail: 'maria.erasable@example.com',
};
const PERSONAL = ['52998224725', '529.982.247-25', 'Maria Erasable', '98888-1234', 'maria.erasable@example.com'];
const OTHER = { CustomerCPF_CNPJ: '11.222.333/0001-81', CustomerName: 'Loja Keeps', CustomerPhone: '+55 21 97777-0000', CustomerEmail: 'keeps@example.com' };

interface Summary {
  data: Array<{ key: string; orders: number; lines: number; quantity: number; revenue: string; discount: string; average_ticket: string }>;
}

describe('customers: GET and DELETE /DataInserterSales/api/sales/customers/{cpf_cnpj} (LGPD)', () => {
  let t: IngestApp;
  const path = (doc: string) => `${SALES_PATH}/customers/${encodeURIComponent(doc)}`;

  beforeAll(async () => {
    t = await startIngest({ RATE_LIMIT_PER_MINUTE: '1000000' });
  });
  afterAll(() => t.close());

  /** An account with 3 lines of the customer (written three ways), 2 of another, and a row error naming the customer (a JSON key). */
  async function loaded() {
    const account = await t.apiKey();
    const rows = [
      saleCells(1, { ...CUSTOMER }),
      saleCells(2, { ...CUSTOMER, CustomerCPF_CNPJ: '52998224725' }),
      saleCells(3, { ...CUSTOMER, CustomerCPF_CNPJ: '529 982 247 25', OrderId: 'ORD-1' }),
      saleCells(4, { ...OTHER }),
      saleCells(5, { ...OTHER, OrderId: 'ORD-1' }),
    ];
    expect((await upload(t.port, { apiKey: account.key, ...CSV }, csvText(rows))).status).toBe(201);
    const json = `[{"OrderId":"J-1","OrderDate":"2026-11-20T10:15:00.000Z","OrderStatus":"paid","ProductId":"P-1","ProductPrice":10.0,"StoreId":"S-1",
      "CustomerCPF_CNPJ":"x","CustomerPhone":"x","CustomerEmail":"x","529.982.247-25":"a key that names the customer"}]`;
    const bad = await upload(t.port, { apiKey: account.key, 'Content-Type': 'application/json' }, json);
    expect(bad.json()).toMatchObject({ rejected: 1, errors: [{ field: '529.982.247-25', reason: 'is not a Sale field' }] });
    return { ...account, rows, badIngestion: bad.json<{ ingestion_id: string }>().ingestion_id };
  }

  const summaries = async (key: string) =>
    Promise.all(
      (['store', 'day', 'product'] as const).map(
        async (g) => (await request(t.http).get(`${SALES_PATH}/summary?group_by=${g}`).set('apiKey', key).expect(200)).body as Summary,
      ),
    );

  it('GET answers everything the account holds about the customer, whatever the punctuation', async () => {
    const { key, badIngestion } = await loaded();
    for (const doc of ['529.982.247-25', '52998224725', '529-982-247/25']) {
      const res = await request(t.http).get(path(doc)).set('apiKey', key).expect(200);
      expect(res.body.cpf_cnpj).toBe('52998224725');
      expect(res.body.lines.map((l: Record<string, string>) => l.ProductId).sort()).toEqual(['P-1', 'P-2', 'P-3']);
      expect(res.body.lines[0]).toMatchObject({
        CustomerName: 'Maria Erasable',
        CustomerEmail: CUSTOMER.CustomerEmail,
        CustomerBirth: '1990-02-28T00:00:00.000000Z',
      });
      expect(res.body.errors).toEqual([{ ingestion_id: badIngestion, line: 1, record: 1, field: '529.982.247-25', reason: 'is not a Sale field' }]);
      expect(res.body.erased_at).toEqual([]);
    }
    const none = await request(t.http).get(path('000.000.000-00')).set('apiKey', key).expect(200);
    expect(none.body).toEqual({ cpf_cnpj: '00000000000', lines: [], errors: [], erased_at: [] });
  });

  it('DELETE erases the personal fields of every line and the row errors naming the customer, in one go; totals stay', async () => {
    const { key, accountId, badIngestion } = await loaded();
    const before = await summaries(key);
    const res = await request(t.http).delete(path('529.982.247-25')).set('apiKey', key).expect(200);
    expect(res.body).toEqual({ lines: 3, errors: 1 });
    expect(await summaries(key)).toEqual(before);

    const after = await request(t.http).get(path('52998224725')).set('apiKey', key).expect(200);
    expect(after.body).toMatchObject({ lines: [], errors: [], erased_at: [expect.stringMatching(/^\d{4}-.*Z$/)] });
    const stored = await t.sql.rows<{ row: string }>(`SELECT s::text AS row FROM ingest_push.sales s WHERE account_id = $1 ORDER BY product_id`, [accountId]);
    expect(stored).toHaveLength(5);
    for (const secret of PERSONAL) expect(stored.filter((r) => r.row.includes(secret))).toEqual([]);
    // The other customer's lines keep theirs; the erased lines keep their amounts.
    expect(stored.filter((r) => r.row.includes('keeps@example.com'))).toHaveLength(2);
    const erased = await t.sql.one<Record<string, unknown>>(
      `SELECT customer_name, customer_cpf_cnpj, customer_phone, customer_email, customer_birth, customer_gender, client_id, product_price, order_total
       FROM ingest_push.sales WHERE account_id = $1 AND product_id = 'P-1'`,
      [accountId],
    );
    expect(erased).toEqual({
      customer_name: null,
      customer_cpf_cnpj: '[erased]',
      customer_phone: '[erased]',
      customer_email: '[erased]',
      customer_birth: null,
      customer_gender: null,
      client_id: null,
      product_price: 40.25,
      order_total: 120.5,
    });
    const errors = await request(t.http).get(`${SALES_PATH}/ingestions/${badIngestion}/errors`).set('apiKey', key).expect(200);
    expect(errors.text).not.toContain('529');
    // The record of the erasure holds no personal data: a keyed hash, the key id, the credential, the counts.
    const record = await t.sql.rows<Record<string, unknown>>(
      `SELECT subject, key_id, lines, errors FROM ingest_push.sales_customer_erasures WHERE account_id = $1`,
      [accountId],
    );
    expect(record).toEqual([{ subject: expect.stringMatching(/^[0-9a-f]{64}$/), key_id: expect.any(String), lines: 3, errors: 1 }]);

    // Every row of the schema as pg_dump --data-only holds it, the account's rows (its lines, runs, erasures; the row errors
    // of its runs): none of the customer's data.
    const dump = await schemaText(t.sql, 'ingest_push', [accountId, badIngestion]);
    const mine = dump.split('\n').filter((l) => l.includes(accountId) || l.includes(badIngestion));
    expect(mine.filter((l) => l.includes('keeps@example.com'))).toHaveLength(2);
    expect(mine.filter((l) => l.includes('[erased]'))).toHaveLength(3);
    for (const secret of PERSONAL) expect(mine.filter((l) => l.includes(secret))).toEqual([]);

    // Erasing again finds nothing; it is recorded again.
    expect((await request(t.http).delete(path('52998224725')).set('apiKey', key).expect(200)).body).toEqual({ lines: 0, errors: 0 });
  });

  it('stores a later upload of an erased customer again, and its answer counts the customer in erased_customers', async () => {
    const { key, rows } = await loaded();
    await request(t.http).delete(path('52998224725')).set('apiKey', key).expect(200);
    const again = await upload(t.port, { apiKey: key, ...CSV }, csvText([rows[0], saleCells(9, { ...CUSTOMER, CustomerCPF_CNPJ: '529982247-25' }), rows[3]]));
    expect(again.json()).toMatchObject({ status: 'completed', received: 3, erased_customers: 1 });
    const run = await request(t.http).get(`${SALES_PATH}/ingestions/${again.json<{ ingestion_id: string }>().ingestion_id}`).set('apiKey', key).expect(200);
    expect(run.body.erased_customers).toBe(1);
    const found = await request(t.http).get(path('52998224725')).set('apiKey', key).expect(200);
    expect(found.body.lines.map((l: Record<string, string>) => l.ProductId).sort()).toEqual(['P-1', 'P-9']);
    const clean = await upload(t.port, { apiKey: key, ...CSV }, csvText([rows[4]]));
    expect(clean.json()).toMatchObject({ erased_customers: 0 });
  });

  it('counts an erased customer in the first upload of an account that holds no lines (its lines COPYed straight into sales)', async () => {
    const { key } = await t.apiKey();
    expect((await request(t.http).delete(path('52998224725')).set('apiKey', key).expect(200)).body).toEqual({ lines: 0, errors: 0 });
    const first = await upload(
      t.port,
      { apiKey: key, ...CSV },
      csvText([saleCells(1, { ...CUSTOMER }), saleCells(2, { ...OTHER }), saleCells(1, { ...CUSTOMER })]),
    );
    expect(first.json()).toMatchObject({ status: 'completed', received: 3, inserted: 2, updated: 1, erased_customers: 1 });
  });

  it('keeps accounts apart: another account neither sees nor erases the customer, whatever the CPF/CNPJ is written as', async () => {
    const { key } = await loaded();
    const other = await t.apiKey();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('.', '-', '/', ' ', ''), { minLength: 11, maxLength: 11 }), async (marks) => {
        const doc = '52998224725'
          .split('')
          .map((d, i) => d + marks[i])
          .join('');
        expect((await request(t.http).get(path(doc)).set('apiKey', other.key).expect(200)).body).toMatchObject({ lines: [], errors: [] });
        expect((await request(t.http).delete(path(doc)).set('apiKey', other.key).expect(200)).body).toEqual({ lines: 0, errors: 0 });
      }),
      { numRuns: 15 },
    );
    expect((await request(t.http).get(path('52998224725')).set('apiKey', key).expect(200)).body.lines).toHaveLength(3);
  });

  it('answers 400 for a path that is no CPF/CNPJ, never 5xx for any', async () => {
    const { key } = await t.apiKey();
    for (const doc of ['abc', '1'.repeat(33), `1${'.'.repeat(70)}`]) {
      const res = await request(t.http).get(path(doc)).set('apiKey', key).expect(400);
      expect(res.body).toEqual({ message: expect.stringContaining('CPF or CNPJ') });
    }
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 80 }),
        fc.constantFrom('get', 'delete') as fc.Arbitrary<'get' | 'delete'>,
        async (doc, method) => {
          const res = await request(t.http)[method](path(doc)).set('apiKey', key);
          expect([200, 400]).toContain(res.status);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('is 503 without ENCRYPTION_KEYS (nothing erased), and CPF/CNPJ check digits are refused only when asked', async () => {
    const bare = await startIngest({ ENCRYPTION_KEYS: '', SALES_VALIDATE_CPF_CNPJ: 'true' });
    try {
      const { key } = await bare.apiKey();
      const rows = [saleCells(1, { ...CUSTOMER }), saleCells(2, { CustomerCPF_CNPJ: '529.982.247-24' }), saleCells(3, { CustomerCPF_CNPJ: '11222333000181' })];
      const res = await upload(bare.port, { apiKey: key, ...CSV }, csvText(rows));
      expect(res.json()).toMatchObject({
        inserted: 2,
        rejected: 1,
        errors: [{ record: 2, field: 'CustomerCPF_CNPJ', reason: 'must be a CPF (11 digits) or CNPJ (14 digits) with right check digits' }],
      });
      const refused = await request(bare.http).delete(path('52998224725')).set('apiKey', key).expect(503);
      expect(refused.body).toEqual({ message: expect.stringContaining('ENCRYPTION_KEYS') });
      expect((await request(bare.http).get(path('52998224725')).set('apiKey', key).expect(200)).body.lines).toHaveLength(1);
    } finally {
      await bare.close();
    }
    const { key } = await t.apiKey();
    expect((await upload(t.port, { apiKey: key, ...CSV }, csvText([saleCells(2, { CustomerCPF_CNPJ: '529.982.247-24' })]))).json()).toMatchObject({
      inserted: 1,
    });
  });
});

describe('customers: the CPF/CNPJ never reaches the logs (the service in a process of its own, logging)', () => {
  let t: IngestApp;
  let child: IngestChild | undefined;
  beforeAll(async () => {
    t = await startIngest();
    child = await startIngestChild({ LOG_LEVEL: 'debug' });
  });
  afterAll(async () => {
    await child?.kill();
    await t.close();
  });

  it('logs the customer routes as …/customers/[redacted], and the erasure without the customer', async () => {
    const { key } = await t.apiKey();
    const base = `http://127.0.0.1:${child!.port}${SALES_PATH}`;
    expect((await upload(child!.port, { apiKey: key, ...CSV }, csvText([saleCells(1, { ...CUSTOMER })]))).status).toBe(201);
    expect((await fetch(`${base}/customers/529.982.247-25`, { headers: { apiKey: key } })).status).toBe(200);
    expect((await fetch(`${base}/customers/52998224725?x=1`, { method: 'DELETE', headers: { apiKey: key } })).status).toBe(200);
    expect((await fetch(`${base}/customers/529982247250000000000000000000000000`, { headers: { apiKey: key } })).status).toBe(400);
    expect((await fetch(`${base}/customers/52998224725`, { headers: { apiKey: 'sales_bad_key' } })).status).toBe(401);
    expect((await fetch(`${base}/customers/11.222.333/0001-81`, { headers: { apiKey: key } })).status).toBe(404);
    const lines = child!.lines;
    await eventually(() => lines.filter((l) => String(l.url).includes('/customers/')).length >= 5 || undefined, { what: 'the five access lines' });
    expect(lines.filter((l) => String(l.url).includes('/customers/')).map((l) => `${l.method} ${l.url} ${l.statusCode}`)).toEqual([
      `GET ${SALES_PATH}/customers/[redacted] 200`,
      `DELETE ${SALES_PATH}/customers/[redacted]?x=1 200`,
      `GET ${SALES_PATH}/customers/[redacted] 400`,
      `GET ${SALES_PATH}/customers/[redacted] 401`,
      `GET ${SALES_PATH}/customers/[redacted] 404`,
    ]);
    expect(lines.find((l) => l.msg === 'customer erased')).toMatchObject({ lines: 1, errors: 0 });
    const logged = JSON.stringify(lines);
    for (const secret of PERSONAL) expect(logged).not.toContain(secret);
    expect(logged).not.toContain('5299822472');
    expect(logged).not.toContain('0001-81');
  });
});
