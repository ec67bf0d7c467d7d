import { createIndexConcurrently, dropIndex } from '@app/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retention rule's index (webhook-maintenance.service.ts): finished deliveries by the time of their last attempt.
 * Built CONCURRENTLY, so writes to a large outbox go on while it builds.
 */
export class WebhookDeliveryFinishedIndex1765000000001 implements MigrationInterface {
  name = 'WebhookDeliveryFinishedIndex1765000000001';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(
      q,
      'webhook_deliveries_finished_idx',
      'webhook_deliveries',
      `((COALESCE(last_attempt_at, created_at))) WHERE status IN ('succeeded', 'failed', 'cancelled')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndex(q, 'webhook_deliveries_finished_idx');
  }
}
