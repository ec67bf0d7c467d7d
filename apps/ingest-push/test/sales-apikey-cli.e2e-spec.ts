import { itKeepsEntitiesAndMigrationsInStep, workerDatabaseUrl } from '@app/testkit';
import request from 'supertest';
import { cli } from '../src/sales/sales-api-key.cli';
import { SALES_PATH, startIngest, type IngestApp } from './support/sales-test';

/** What `npm run -s ingest:apikey -- [--name N] [--account A]` runs (tools/app-cli.js calls `cli.parse` then `cli.run`). */
describe('ingest:apikey CLI', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest();
  });
  afterAll(() => t.close());

  it('prints a key of a new account that the sales routes accept, and stores only its hash', async () => {
    const key = await cli.run(await workerDatabaseUrl(), cli.parse(['--name', 'ops']));
    expect(key).toMatch(/^sales_[0-9a-f-]{36}_[A-Za-z0-9]{40}$/);
    const id = key.split('_')[1];
    const row = await t.sql.one<{ name: string; secret_hash: Buffer }>('SELECT name, secret_hash FROM ingest_push.sales_api_keys WHERE id = $1', [id]);
    expect(row!.name).toBe('ops');
    expect(row!.secret_hash.toString('utf8')).not.toContain(key.split('_')[2]);
    const res = await request(t.http).get(`${SALES_PATH}/ingestions/00000000-0000-4000-8000-000000000000`).set('apiKey', key);
    expect(res.status).toBe(404);
  });

  it('adds a key to an existing account with --account, which then sees that account only', async () => {
    const first = await t.apiKey();
    const key = await cli.run(await workerDatabaseUrl(), cli.parse(['--account', first.accountId]));
    const id = key.split('_')[1];
    const row = await t.sql.one<{ account_id: string }>('SELECT account_id FROM ingest_push.sales_api_keys WHERE id = $1', [id]);
    expect(row!.account_id).toBe(first.accountId);
  });

  it('refuses bad arguments and an unknown account with one sentence', async () => {
    expect(() => cli.parse(['--account', 'nope'])).toThrow('--account must be the UUID of an existing sales account.');
    expect(() => cli.parse(['--bogus', 'x'])).toThrow(/Unexpected argument "--bogus"/);
    await expect(cli.run(await workerDatabaseUrl(), cli.parse(['--account', '00000000-0000-4000-8000-000000000000']))).rejects.toThrow(
      'There is no sales account 00000000-0000-4000-8000-000000000000.',
    );
  });
});

/** The entities describe exactly what the migrations built, and migrating again is a no-op. */
describe('ingest-push migrations', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest();
  });
  afterAll(() => t.close());

  itKeepsEntitiesAndMigrationsInStep(() => t, 'ingest_push');

  it('creates the sales key and the indexes people query by', async () => {
    const indexes = await t.sql.rows<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE schemaname = 'ingest_push' AND tablename = 'sales' ORDER BY indexname`);
    expect(indexes.map((i) => i.indexdef.replace(/^.* USING btree /, ''))).toEqual(
      expect.arrayContaining(['(account_id, order_id, product_id)', '(account_id, order_date)', '(account_id, store_id)', '(account_id, customer_cpf_cnpj)']),
    );
  });
});
