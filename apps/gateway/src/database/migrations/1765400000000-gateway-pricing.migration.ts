import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pricing: each status keeps the network's `pricing` and `conversation`; each message its pricing category and
 * billability (what GET api/Usage counts, kept after the statuses are pruned). Nullable columns: no rewrite.
 */
export class GatewayPricing1765400000000 implements MigrationInterface {
  name = 'GatewayPricing1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "gateway"."message_statuses" ADD "pricing" jsonb`);
    await q.query(`ALTER TABLE "gateway"."message_statuses" ADD "conversation" jsonb`);
    await q.query(`ALTER TABLE "gateway"."messages" ADD "pricing_category" character varying(32)`);
    await q.query(`ALTER TABLE "gateway"."messages" ADD "billable" boolean`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "gateway"."messages" DROP COLUMN "billable"`);
    await q.query(`ALTER TABLE "gateway"."messages" DROP COLUMN "pricing_category"`);
    await q.query(`ALTER TABLE "gateway"."message_statuses" DROP COLUMN "conversation"`);
    await q.query(`ALTER TABLE "gateway"."message_statuses" DROP COLUMN "pricing"`);
  }
}
