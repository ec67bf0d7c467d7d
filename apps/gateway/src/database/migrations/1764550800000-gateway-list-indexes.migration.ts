import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the lists and statistics: a phone's messages by time with their status (GET api/Messages
 * newest first, and GET api/Stats's hourly counts by status as one index-only scan; it replaces the
 * (phone_ref, created_at) index, a prefix of it), and an account's templates by time (GET api/Templates).
 */
export class GatewayListIndexes1764550800000 implements MigrationInterface {
  name = 'GatewayListIndexes1764550800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "messages_phone_created_status_idx" ON "gateway"."messages" ("phone_ref", "created_at", "status")`);
    await q.query(`DROP INDEX "gateway"."messages_phone_created_idx"`);
    await q.query(`CREATE INDEX "templates_account_created_idx" ON "gateway"."templates" ("account_id", "created_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "gateway"."templates_account_created_idx"`);
    await q.query(`CREATE INDEX "messages_phone_created_idx" ON "gateway"."messages" ("phone_ref", "created_at")`);
    await q.query(`DROP INDEX "gateway"."messages_phone_created_status_idx"`);
  }
}
