import type { MigrationInterface, QueryRunner } from 'typeorm';

/** GET /api/pushm/stats: an account's finished pushes (sent, failed, invalid token) by when they ended. */
export class ConsoleReadIndexes1765137210000 implements MigrationInterface {
  name = 'ConsoleReadIndexes1765137210000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `CREATE INDEX "push_items_outcome_idx" ON ${s}."push_items" ("account_id", "updated_at") WHERE status IN ('sent', 'failed', 'invalid_token')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP INDEX ${s}."push_items_outcome_idx"`);
  }
}
