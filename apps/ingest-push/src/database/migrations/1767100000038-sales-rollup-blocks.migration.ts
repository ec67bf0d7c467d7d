import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Summary rollups of blocks of a month's days (periods `d2`, `d4`, `d8`, `d16` beside `month`). A month row says
 * whether its blocks were summed with it (`with_blocks`): every existing one, and any a replica of the version before
 * sums (month rows only), says false; summaries read such a month from day rows, and the refresher finds it (a
 * partial index) and sums its blocks.
 */
export class SalesRollupBlocks1767100000038 implements MigrationInterface {
  name = 'SalesRollupBlocks1767100000038';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."sales_daily_rollups" ADD "with_blocks" boolean NOT NULL DEFAULT false`);
    await q.query(
      `CREATE INDEX "sales_daily_rollups_months_without_blocks_idx" ON ${s}."sales_daily_rollups" ("account_id", "day")
       WHERE dimension = 'day' AND period = 'month' AND NOT with_blocks`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DELETE FROM ${s}."sales_daily_rollups" WHERE "period" IN ('d2', 'd4', 'd8', 'd16')`);
    await q.query(`DROP INDEX ${s}."sales_daily_rollups_months_without_blocks_idx"`);
    await q.query(`ALTER TABLE ${s}."sales_daily_rollups" DROP COLUMN "with_blocks"`);
  }
}
