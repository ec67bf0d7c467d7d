import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables whose `account_id` named a row of `sales_accounts` or of `push_accounts`. */
const SALES_OWNED = ['sales', 'sales_api_keys', 'sales_ingestions'];
const PUSH_OWNED = ['push_tokens', 'push_batches', 'push_items', 'push_invalid_devices'];

/** Foreign keys to the account: [table, new name, old name]. The sales ones had TypeORM's generated names. */
const ACCOUNT_FKS = [
  ['sales_api_keys', 'sales_api_keys_account_fk', 'FK_f88825f87bab0e8d59fa32c038f'],
  ['sales_ingestions', 'sales_ingestions_account_fk', 'FK_30c3dfbdda3c13f9687627f67fe'],
  ['push_tokens', 'push_tokens_account_fk', 'push_tokens_account_fk'],
  ['push_batches', 'push_batches_account_fk', 'push_batches_account_fk'],
  ['push_invalid_devices', 'push_invalid_devices_account_fk', 'push_invalid_devices_account_fk'],
] as const;

/**
 * One `accounts` table, unique by name, for sales and push. An account name given to
 * `ingest:apikey` and to `push:token` is one account, and `sales_accounts` could hold one
 * name several times: each name keeps the oldest of its accounts (in either table), and
 * every row of the others moves to it. Sales lines that then collide on (account, order,
 * product) keep the most recently written one, as a re-upload would have.
 */
export class OneAccountTable1764288000000 implements MigrationInterface {
  name = 'OneAccountTable1764288000000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `CREATE TABLE ${s}."accounts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "accounts_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "accounts_name_uq" ON ${s}."accounts" ("name")`);
    await q.query(
      `INSERT INTO ${s}."accounts" (id, name, created_at)
       SELECT DISTINCT ON (name) id, name, created_at
       FROM (SELECT id, name, created_at FROM ${s}."sales_accounts" UNION ALL SELECT id, name, created_at FROM ${s}."push_accounts") every
       ORDER BY name, created_at, id`,
    );
    for (const [table, , old] of ACCOUNT_FKS) await q.query(`ALTER TABLE ${s}."${table}" DROP CONSTRAINT "${old}"`);
    // Only sales accounts sharing a name can bring two lines with one key together; push names were unique already.
    await q.query(
      `DELETE FROM ${s}."sales" d USING (
         SELECT account_id, order_id, product_id FROM (
           SELECT x.account_id, x.order_id, x.product_id,
                  row_number() OVER (PARTITION BY a.id, x.order_id, x.product_id ORDER BY x.updated_at DESC, x.account_id = a.id DESC, x.account_id) AS rank
           FROM ${s}."sales" x
           JOIN ${s}."sales_accounts" o ON o.id = x.account_id
           JOIN ${s}."accounts" a ON a.name = o.name
           WHERE o.name IN (SELECT name FROM ${s}."sales_accounts" GROUP BY name HAVING count(*) > 1)
         ) ranked WHERE rank > 1
       ) loser
       WHERE (d.account_id, d.order_id, d.product_id) = (loser.account_id, loser.order_id, loser.product_id)`,
    );
    const owners = [...SALES_OWNED.map((t) => [t, 'sales_accounts']), ...PUSH_OWNED.map((t) => [t, 'push_accounts'])];
    for (const [table, old] of owners) {
      await q.query(
        `UPDATE ${s}."${table}" t SET account_id = a.id
         FROM ${s}."${old}" o JOIN ${s}."accounts" a ON a.name = o.name
         WHERE t.account_id = o.id AND o.id <> a.id`,
      );
    }
    await q.query(`DROP TABLE ${s}."sales_accounts"`);
    await q.query(`DROP TABLE ${s}."push_accounts"`);
    for (const [table, fk] of ACCOUNT_FKS) {
      await q.query(
        `ALTER TABLE ${s}."${table}" ADD CONSTRAINT "${fk}" FOREIGN KEY ("account_id") REFERENCES ${s}."accounts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
    }
  }

  /** Both old tables again, each with every account (merged accounts stay merged). */
  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `CREATE TABLE ${s}."sales_accounts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c7d6a15dcc5f6c61bdfd353314f" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE TABLE ${s}."push_accounts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" character varying(255) NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "push_accounts_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE UNIQUE INDEX "push_accounts_name_uq" ON ${s}."push_accounts" ("name")`);
    await q.query(`INSERT INTO ${s}."sales_accounts" (id, name, created_at) SELECT id, name, created_at FROM ${s}."accounts"`);
    await q.query(`INSERT INTO ${s}."push_accounts" (id, name, created_at) SELECT id, name, created_at FROM ${s}."accounts"`);
    for (const [table, fk, old] of ACCOUNT_FKS) {
      const target = table.startsWith('sales') ? 'sales_accounts' : 'push_accounts';
      await q.query(`ALTER TABLE ${s}."${table}" DROP CONSTRAINT "${fk}"`);
      await q.query(
        `ALTER TABLE ${s}."${table}" ADD CONSTRAINT "${old}" FOREIGN KEY ("account_id") REFERENCES ${s}."${target}"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
      );
    }
    await q.query(`DROP TABLE ${s}."accounts"`);
  }
}
