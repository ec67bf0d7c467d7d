import { dataSourceOptions, migrateDatabase } from '@app/database';
import { itKeepsEntitiesAndMigrationsInStep, workerDatabaseUrl } from '@app/testkit';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { INGEST_PUSH_SCHEMA } from '../src/database/ingest-push.schema';
import { createIngestPushDataSource } from '../src/database/ingest-push.data-source';
import { SalesTables1763900000000 } from '../src/database/migrations/1763900000000-sales-tables.migration';
import { PushTables1763900000001 } from '../src/database/migrations/1763900000001-push-tables.migration';
import { OneAccountTable1764288000000 } from '../src/database/migrations/1764288000000-one-account-table.migration';
import { ingestPushMigrations } from '../src/database/ingest-push.migrations';
import { startIngest, type IngestApp } from './support/sales-test';

/** The entities describe exactly what the migrations built, and migrating again is a no-op. */
describe('ingest-push migrations', () => {
  let t: IngestApp;
  beforeAll(async () => {
    t = await startIngest();
  });
  afterAll(() => t.close());

  itKeepsEntitiesAndMigrationsInStep(() => t, INGEST_PUSH_SCHEMA);

  it('creates the sales key and the indexes people query by', async () => {
    const indexes = await t.sql.rows<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'ingest_push' AND tablename = 'sales' ORDER BY indexname`,
    );
    expect(indexes.map((i) => i.indexdef.replace(/^.* USING btree /, ''))).toEqual(
      expect.arrayContaining([
        '(account_id, order_id, product_id)',
        '(account_id, order_date)',
        '(account_id, store_id)',
        "(account_id, regexp_replace(customer_cpf_cnpj, '[^0-9]'::text, ''::text, 'g'::text))",
      ]),
    );
  });

  it('refuses a second account of one name', async () => {
    await t.sql.rows(`INSERT INTO ingest_push.accounts (name) VALUES ('only-once')`);
    await expect(t.sql.rows(`INSERT INTO ingest_push.accounts (name) VALUES ('only-once')`)).rejects.toMatchObject({
      code: '23505',
      constraint: 'accounts_name_uq',
    });
  });
});

/** An empty database of this worker's own (the global teardown drops it with the run's others). */
async function emptyDatabaseUrl(label: string): Promise<string> {
  const url = new URL(await workerDatabaseUrl());
  const name = `${url.pathname.slice(1)}_${label}`;
  const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  url.pathname = `/${name}`;
  return url.toString();
}

const DAY = 24 * 3600 * 1000;
const ago = (ms: number) => new Date(Date.now() - ms);

/** A database as it stood before one account table: both account tables, with names repeated. */
describe('the migration to one account table, on a database with data', () => {
  let url: string;
  let db: DataSource;
  const ids = {
    acmeOld: '00000000-0000-4000-8000-00000000a001',
    acmeNew: '00000000-0000-4000-8000-00000000a002',
    sharedSales: '00000000-0000-4000-8000-00000000a003',
    salesOnly: '00000000-0000-4000-8000-00000000a004',
    sharedPush: '00000000-0000-4000-8000-00000000b001',
    pushOnly: '00000000-0000-4000-8000-00000000b002',
  };

  beforeAll(async () => {
    url = await emptyDatabaseUrl('accounts');
    const before = new DataSource(
      dataSourceOptions(url, 2, { schema: INGEST_PUSH_SCHEMA, entities: [], migrations: [SalesTables1763900000000, PushTables1763900000001] }),
    );
    await before.initialize();
    try {
      await migrateDatabase(before, INGEST_PUSH_SCHEMA);
      await seed(before);
    } finally {
      await before.destroy();
    }
    db = await createIngestPushDataSource(url).initialize();
    await migrateDatabase(db, INGEST_PUSH_SCHEMA);
  });
  afterAll(() => db?.destroy());

  async function seed(q: DataSource): Promise<void> {
    const line = (account: string, order: string, price: number, updatedAt: Date, ingestion: string) =>
      q.query(
        `INSERT INTO ingest_push.sales (account_id, order_id, product_id, order_date, order_status, product_price, store_id, customer_cpf_cnpj, customer_phone, customer_email, ingestion_id, updated_at)
         VALUES ($1, $2, 'p1', now(), 'paid', $3, 's1', '123', '555', 'a@b.c', $4, $5)`,
        [account, order, price, ingestion, updatedAt],
      );
    await q.query(
      `INSERT INTO ingest_push.sales_accounts (id, name, created_at) VALUES ($1, 'acme', $2), ($3, 'acme', $4), ($5, 'shared', $6), ($7, 'sales-only', $8)`,
      [ids.acmeOld, ago(3 * DAY), ids.acmeNew, ago(2 * DAY), ids.sharedSales, ago(DAY), ids.salesOnly, ago(DAY)],
    );
    await q.query(`INSERT INTO ingest_push.push_accounts (id, name, created_at) VALUES ($1, 'shared', $2), ($3, 'push-only', $4)`, [
      ids.sharedPush,
      ago(2 * DAY),
      ids.pushOnly,
      ago(DAY),
    ]);
    const key = async (account: string, name: string) =>
      (await q.query(`INSERT INTO ingest_push.sales_api_keys (account_id, name, secret_hash) VALUES ($1, $2, '\\x00') RETURNING id`, [account, name]))[0]
        .id as string;
    const ingestion = async (account: string, apiKey: string) =>
      (await q.query(`INSERT INTO ingest_push.sales_ingestions (account_id, api_key_id, format) VALUES ($1, $2, 'csv') RETURNING id`, [account, apiKey]))[0]
        .id as string;
    const oldIngestion = await ingestion(ids.acmeOld, await key(ids.acmeOld, 'old'));
    const newIngestion = await ingestion(ids.acmeNew, await key(ids.acmeNew, 'new'));
    await q.query(`INSERT INTO ingest_push.sales_ingestion_errors (ingestion_id, line, record, field, reason) VALUES ($1, 2, 1, 'OrderId', 'missing')`, [
      newIngestion,
    ]);
    await line(ids.acmeOld, 'o1', 1, ago(DAY), oldIngestion); // the same line again, written later under the newer account: that one stays
    await line(ids.acmeNew, 'o1', 2, ago(3600_000), newIngestion);
    await line(ids.acmeOld, 'o2', 3, ago(DAY), oldIngestion);
    await line(ids.acmeNew, 'o3', 4, ago(DAY), newIngestion);
    await line(ids.sharedSales, 'o1', 5, ago(DAY), await ingestion(ids.sharedSales, await key(ids.sharedSales, 'shared')));
    await q.query(`INSERT INTO ingest_push.push_tokens (account_id, name, secret_hash) VALUES ($1, 'sender', '\\x00')`, [ids.sharedPush]);
    const [batch] = await q.query(
      `INSERT INTO ingest_push.push_batches (account_id, idempotency_key, accepted, rejected) VALUES ($1, 'k1', 1, 0) RETURNING id`,
      [ids.sharedPush],
    );
    await q.query(
      `INSERT INTO ingest_push.push_items (batch_id, account_id, position, platform, device, title, body, due_at, next_attempt_at) VALUES ($1, $2, 0, 'android', 'd1', 't', 'b', now(), now())`,
      [batch.id, ids.sharedPush],
    );
    await q.query(`INSERT INTO ingest_push.push_invalid_devices (account_id, platform, device, reason) VALUES ($1, 'ios', 'd2', 'apns 410')`, [ids.sharedPush]);
  }

  it('keeps one account per name, the oldest of either table', async () => {
    const accounts = await db.query(`SELECT id, name FROM ingest_push.accounts ORDER BY name`);
    expect(accounts).toEqual([
      { id: ids.acmeOld, name: 'acme' },
      { id: ids.pushOnly, name: 'push-only' },
      { id: ids.salesOnly, name: 'sales-only' },
      { id: ids.sharedPush, name: 'shared' },
    ]);
    const old = await db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'ingest_push' AND table_name IN ('sales_accounts', 'push_accounts')`,
    );
    expect(old).toEqual([]);
  });

  it("moves the merged accounts' keys, ingestions and sales lines to the survivor, the latest write of a repeated line winning", async () => {
    const keys = await db.query(`SELECT name, account_id FROM ingest_push.sales_api_keys ORDER BY name`);
    expect(keys).toEqual([
      { name: 'new', account_id: ids.acmeOld },
      { name: 'old', account_id: ids.acmeOld },
      { name: 'shared', account_id: ids.sharedPush },
    ]);
    const ingestions = await db.query(`SELECT account_id, count(*)::int AS n FROM ingest_push.sales_ingestions GROUP BY account_id ORDER BY account_id`);
    expect(ingestions).toEqual([
      { account_id: ids.acmeOld, n: 2 },
      { account_id: ids.sharedPush, n: 1 },
    ]);
    expect(await db.query(`SELECT count(*)::int AS n FROM ingest_push.sales_ingestion_errors`)).toEqual([{ n: 1 }]);
    const lines = await db.query(`SELECT account_id, order_id, product_price AS price FROM ingest_push.sales ORDER BY account_id, order_id`);
    expect(lines).toEqual([
      { account_id: ids.acmeOld, order_id: 'o1', price: 2 },
      { account_id: ids.acmeOld, order_id: 'o2', price: 3 },
      { account_id: ids.acmeOld, order_id: 'o3', price: 4 },
      { account_id: ids.sharedPush, order_id: 'o1', price: 5 },
    ]);
  });

  it("leaves push rows on their account, and every account's foreign key points at accounts", async () => {
    for (const table of ['push_tokens', 'push_batches', 'push_items', 'push_invalid_devices']) {
      expect(await db.query(`SELECT DISTINCT account_id FROM ingest_push.${table}`)).toEqual([{ account_id: ids.sharedPush }]);
    }
    const fks = await db.query(
      `SELECT conrelid::regclass::text AS "table", confrelid::regclass::text AS target FROM pg_constraint
       WHERE contype = 'f' AND connamespace = 'ingest_push'::regnamespace AND conname LIKE '%account%' ORDER BY 1`,
    );
    expect(fks).toEqual(
      ['push_batches', 'push_invalid_devices', 'push_settings', 'push_tokens', 'sales_api_keys', 'sales_customer_erasures', 'sales_ingestions'].map(
        (table) => ({
          table: `ingest_push.${table}`,
          target: 'ingest_push.accounts',
        }),
      ),
    );
  });

  it('leaves the schema the entities describe, and can be undone and run again', async () => {
    const diff = async () => (await db.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query);
    expect(await diff()).toEqual([]);
    // Back to before the one-account migration: the later ones are undone first.
    const undo = ingestPushMigrations.length - ingestPushMigrations.indexOf(OneAccountTable1764288000000);
    for (let i = 0; i < undo; i++) await db.undoLastMigration({ transaction: 'each' });
    expect(await db.query(`SELECT name FROM ingest_push.sales_accounts ORDER BY name`)).toEqual([
      { name: 'acme' },
      { name: 'push-only' },
      { name: 'sales-only' },
      { name: 'shared' },
    ]);
    await migrateDatabase(db, INGEST_PUSH_SCHEMA);
    expect(await diff()).toEqual([]);
    expect(await db.query(`SELECT count(*)::int AS n FROM ingest_push.accounts`)).toEqual([{ n: 4 }]);
  });
});
