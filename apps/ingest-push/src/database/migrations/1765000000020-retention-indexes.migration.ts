import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the retention rules (libs/database's Pruner): push batches by `created_at` (the rules of items and
 * batches start from old batches) and finished ingestions by `finished_at` (the rules of errors and ingestions).
 * Built CONCURRENTLY, outside a transaction, so writes go on while they build; an index a failed build left
 * invalid is dropped first.
 */
export class RetentionIndexes1765000000020 implements MigrationInterface {
  name = 'RetentionIndexes1765000000020';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${s}."push_batches_created_idx"`);
    await q.query(`CREATE INDEX CONCURRENTLY "push_batches_created_idx" ON ${s}."push_batches" ("created_at")`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${s}."sales_ingestions_finished_idx"`);
    await q.query(`CREATE INDEX CONCURRENTLY "sales_ingestions_finished_idx" ON ${s}."sales_ingestions" ("finished_at") WHERE "status" <> 'running'`);
  }

  /** Plain DROP INDEX: TypeORM runs every undo inside a transaction, whatever `transaction` says. */
  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP INDEX IF EXISTS ${s}."sales_ingestions_finished_idx"`);
    await q.query(`DROP INDEX IF EXISTS ${s}."push_batches_created_idx"`);
  }
}
