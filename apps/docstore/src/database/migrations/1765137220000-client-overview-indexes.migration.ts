import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET …/stats: a client's history entries and soft deletions by time.
 * Built CONCURRENTLY, outside a transaction, so writes go on while they build; an index a failed build left invalid is dropped first.
 */
export class ClientOverviewIndexes1765137220000 implements MigrationInterface {
  name = 'ClientOverviewIndexes1765137220000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS "docstore"."document_history_client_created_idx"`);
    await q.query(`CREATE INDEX CONCURRENTLY "document_history_client_created_idx" ON "docstore"."document_history" ("client_id", "created_at")`);
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS "docstore"."documents_client_deleted_idx"`);
    await q.query(
      `CREATE INDEX CONCURRENTLY "documents_client_deleted_idx" ON "docstore"."documents" ("client_id", "deleted_at") WHERE deleted_at IS NOT NULL`,
    );
  }

  /** Plain DROP INDEX: TypeORM runs every undo inside a transaction, whatever `transaction` says. */
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS "docstore"."documents_client_deleted_idx"`);
    await q.query(`DROP INDEX IF EXISTS "docstore"."document_history_client_created_idx"`);
  }
}
