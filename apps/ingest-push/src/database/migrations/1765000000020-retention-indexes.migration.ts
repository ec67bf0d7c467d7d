import { createIndexConcurrently, dropIndex } from '@app/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the retention rules (libs/database's Pruner): push batches by `created_at` (the rules of items and
 * batches start from old batches) and finished ingestions by `finished_at` (the rules of errors and ingestions).
 * Built CONCURRENTLY, so writes go on.
 */
export class RetentionIndexes1765000000020 implements MigrationInterface {
  name = 'RetentionIndexes1765000000020';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(q, 'push_batches_created_idx', 'push_batches', '("created_at")');
    await createIndexConcurrently(q, 'sales_ingestions_finished_idx', 'sales_ingestions', `("finished_at") WHERE "status" <> 'running'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndex(q, 'sales_ingestions_finished_idx');
    await dropIndex(q, 'push_batches_created_idx');
  }
}
