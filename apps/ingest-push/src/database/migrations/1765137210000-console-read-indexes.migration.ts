import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /api/pushm/stats: an account's finished pushes (sent, failed, invalid token) by when they ended.
 * Built CONCURRENTLY, outside a transaction, so pushes go on while it builds; an index a failed build left invalid is dropped first.
 */
export class ConsoleReadIndexes1765137210000 implements MigrationInterface {
  name = 'ConsoleReadIndexes1765137210000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${s}."push_items_outcome_idx"`);
    await q.query(
      `CREATE INDEX CONCURRENTLY "push_items_outcome_idx" ON ${s}."push_items" ("account_id", "updated_at") WHERE status IN ('sent', 'failed', 'invalid_token')`,
    );
  }

  /** Plain DROP INDEX: TypeORM runs every undo inside a transaction, whatever `transaction` says. */
  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP INDEX IF EXISTS ${s}."push_items_outcome_idx"`);
  }
}
