import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Summaries from rollups (issue 38): per account, grouping dimension and day (or month, the sum of its days), the
 * totals of its lines; and the days (months) changed since their rollup was computed ("dirty"), which the merge
 * records and a background refresher clears. Every day that already has lines starts dirty, so the refresher builds its rollup.
 */
export class SalesRollups1766600000038 implements MigrationInterface {
  name = 'SalesRollups1766600000038';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `CREATE TABLE ${s}."sales_daily_rollups" ("id" BIGSERIAL NOT NULL, "account_id" uuid NOT NULL, "dimension" character varying(16) NOT NULL,
         "period" character varying(8) NOT NULL, "day" date NOT NULL, "key" text, "orders" integer NOT NULL, "lines" integer NOT NULL, "quantity" bigint NOT NULL, "revenue" numeric NOT NULL,
         "discount" numeric NOT NULL, CONSTRAINT "sales_daily_rollups_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `CREATE INDEX "sales_daily_rollups_account_dimension_period_day_idx" ON ${s}."sales_daily_rollups" ("account_id", "dimension", "period", "day")`,
    );
    await q.query(
      `CREATE TABLE ${s}."sales_rollup_dirty_days" ("id" BIGSERIAL NOT NULL, "account_id" uuid NOT NULL, "period" character varying(8) NOT NULL DEFAULT 'day',
         "day" date NOT NULL, CONSTRAINT "sales_rollup_dirty_days_pkey" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "sales_rollup_dirty_days_account_day_idx" ON ${s}."sales_rollup_dirty_days" ("account_id", "day")`);
    await q.query(
      `INSERT INTO ${s}."sales_rollup_dirty_days" ("account_id", "day") SELECT DISTINCT "account_id", ("order_date" AT TIME ZONE 'UTC')::date FROM ${s}."sales"`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP TABLE ${s}."sales_rollup_dirty_days"`);
    await q.query(`DROP TABLE ${s}."sales_daily_rollups"`);
  }
}
