import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes for the retention rules (libs/database's Pruner): message statuses by `occurred_at` and inbound events by
 * `received_at`, so each prune batch reads only expired rows instead of scanning the table. Built CONCURRENTLY,
 * outside a transaction, so writes go on while they build; an index a failed build left invalid is dropped first.
 */
export class GatewayRetentionIndexes1765000000010 implements MigrationInterface {
  name = 'GatewayRetentionIndexes1765000000010';
  transaction = false;

  async up(q: QueryRunner): Promise<void> {
    for (const [index, table, column] of INDEXES) {
      await q.query(`DROP INDEX CONCURRENTLY IF EXISTS "gateway"."${index}"`);
      await q.query(`CREATE INDEX CONCURRENTLY "${index}" ON "gateway"."${table}" ("${column}")`);
    }
  }

  /** Plain DROP INDEX: TypeORM runs every undo inside a transaction, whatever `transaction` says. */
  async down(q: QueryRunner): Promise<void> {
    for (const [index] of INDEXES) await q.query(`DROP INDEX IF EXISTS "gateway"."${index}"`);
  }
}

const INDEXES = [
  ['message_statuses_occurred_idx', 'message_statuses', 'occurred_at'],
  ['inbound_events_received_idx', 'inbound_events', 'received_at'],
] as const;
