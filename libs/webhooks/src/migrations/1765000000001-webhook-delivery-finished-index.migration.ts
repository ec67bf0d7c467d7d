import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retention rule's index (webhook-maintenance.service.ts): finished deliveries by the time of their last attempt.
 * Built CONCURRENTLY, outside a transaction, so writes to a large outbox go on while it builds. A build that
 * failed halfway leaves an invalid index: it is dropped first, so running the migration again builds it afresh.
 */
export class WebhookDeliveryFinishedIndex1765000000001 implements MigrationInterface {
  name = 'WebhookDeliveryFinishedIndex1765000000001';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP INDEX CONCURRENTLY IF EXISTS ${s}."webhook_deliveries_finished_idx"`);
    await q.query(
      `CREATE INDEX CONCURRENTLY "webhook_deliveries_finished_idx" ON ${s}."webhook_deliveries" ((COALESCE(last_attempt_at, created_at)))
       WHERE status IN ('succeeded', 'failed', 'cancelled')`,
    );
  }

  /** Plain DROP INDEX: TypeORM runs every undo inside a transaction, whatever `transaction` says. */
  async down(q: QueryRunner): Promise<void> {
    const s = `"${q.connection.driver.schema}"`;
    await q.query(`DROP INDEX IF EXISTS ${s}."webhook_deliveries_finished_idx"`);
  }
}
