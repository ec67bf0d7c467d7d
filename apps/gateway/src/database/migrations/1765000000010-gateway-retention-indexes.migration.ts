import { createIndexConcurrently, dropIndex } from '@app/database';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the retention rules (libs/database's Pruner): message statuses by `occurred_at` and inbound events by
 * `received_at`, so each prune batch reads only expired rows instead of scanning the table (built CONCURRENTLY, so
 * writes go on).
 */
export class GatewayRetentionIndexes1765000000010 implements MigrationInterface {
  name = 'GatewayRetentionIndexes1765000000010';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    await createIndexConcurrently(q, 'message_statuses_occurred_idx', 'message_statuses', '("occurred_at")');
    await createIndexConcurrently(q, 'inbound_events_received_idx', 'inbound_events', '("received_at")');
  }

  async down(q: QueryRunner): Promise<void> {
    await dropIndex(q, 'message_statuses_occurred_idx');
    await dropIndex(q, 'inbound_events_received_idx');
  }
}
