import type { MigrationInterface, QueryRunner } from 'typeorm';

/** GET …/stats: a client's history entries and soft deletions by time. */
export class ClientOverviewIndexes1765137220000 implements MigrationInterface {
  name = 'ClientOverviewIndexes1765137220000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "document_history_client_created_idx" ON "docstore"."document_history" ("client_id", "created_at")`);
    await q.query(`CREATE INDEX "documents_client_deleted_idx" ON "docstore"."documents" ("client_id", "deleted_at") WHERE deleted_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "docstore"."documents_client_deleted_idx"`);
    await q.query(`DROP INDEX "docstore"."document_history_client_created_idx"`);
  }
}
