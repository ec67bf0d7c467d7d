import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A worker's claim on a delivery's next attempt, taken in PostgreSQL before it sends (WebhookAttemptsRepository.claim):
 * `claim_token` names the claim, `claimed_until` ends its lease. Nullable columns without a default: no table rewrite.
 */
export class WebhookDeliveryClaim1765000000000 implements MigrationInterface {
  name = 'WebhookDeliveryClaim1765000000000';

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."webhook_deliveries" ADD COLUMN "claim_token" uuid, ADD COLUMN "claimed_until" TIMESTAMP WITH TIME ZONE`);
  }

  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`ALTER TABLE ${s}."webhook_deliveries" DROP COLUMN "claimed_until", DROP COLUMN "claim_token"`);
  }
}
