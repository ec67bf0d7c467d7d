import { createIndexConcurrently, dropIndex } from '@app/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** GET /api/pushm/stats: an account's finished pushes (sent, failed, invalid token) by when they ended (built CONCURRENTLY, so pushes go on). */
export class ConsoleReadIndexes1765137210000 implements MigrationInterface {
  name = 'ConsoleReadIndexes1765137210000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(
      q,
      'push_items_outcome_idx',
      'push_items',
      `("account_id", "updated_at") WHERE status IN ('sent', 'failed', 'invalid_token')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndex(q, 'push_items_outcome_idx');
  }
}
