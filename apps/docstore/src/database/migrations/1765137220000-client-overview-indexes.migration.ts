import { createIndexConcurrently, dropIndex } from '@app/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** GET …/stats: a client's history entries and soft deletions by time (built CONCURRENTLY, so writes go on). */
export class ClientOverviewIndexes1765137220000 implements MigrationInterface {
  name = 'ClientOverviewIndexes1765137220000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(q, 'document_history_client_created_idx', 'document_history', '("client_id", "created_at")');
    await createIndexConcurrently(q, 'documents_client_deleted_idx', 'documents', '("client_id", "deleted_at") WHERE deleted_at IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndex(q, 'documents_client_deleted_idx');
    await dropIndex(q, 'document_history_client_created_idx');
  }
}
