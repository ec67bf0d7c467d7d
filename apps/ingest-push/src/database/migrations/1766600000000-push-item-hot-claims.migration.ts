import { createIndexConcurrently, dropIndex } from '@app/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A worker's claim of a push becomes a HOT update (no new index entries): it sets `status`, `attempts` and the new
 * `claimed_at`, none of them indexed, once the stats index of ended pushes is keyed on `updated_at` over rows with no
 * `next_attempt_at` (not on `status`), and once pages keep room for the new row versions (`fillfactor` 70, for pages
 * written from now on). A claim made before this migration keeps its age (`claimed_at` from `updated_at`). Indexes are
 * built CONCURRENTLY, so writes go on.
 */
export class PushItemHotClaims1766600000000 implements MigrationInterface {
  name = 'PushItemHotClaims1766600000000';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."push_items" ADD COLUMN IF NOT EXISTS "claimed_at" TIMESTAMP WITH TIME ZONE`);
    await q.query(`ALTER TABLE ${s}."push_items" SET (fillfactor = 70)`);
    await q.query(`UPDATE ${s}."push_items" SET "claimed_at" = "updated_at" WHERE "status" = 'sending' AND "claimed_at" IS NULL`);
    await createIndexConcurrently(q, 'push_items_ended_idx', 'push_items', '("account_id", "updated_at") WHERE next_attempt_at IS NULL');
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${s}."push_items_outcome_idx"`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(
      `CREATE INDEX IF NOT EXISTS "push_items_outcome_idx" ON ${s}."push_items" ("account_id", "updated_at") WHERE status IN ('sent', 'failed', 'invalid_token')`,
    );
    await dropIndex(q, 'push_items_ended_idx');
    await q.query(`ALTER TABLE ${s}."push_items" RESET (fillfactor)`);
    await q.query(`ALTER TABLE ${s}."push_items" DROP COLUMN "claimed_at"`);
  }
}
