import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookEntity } from './webhook.entity';

/**
 * pending → (attempt) → succeeded | retrying → … | failed; cancelled when the webhook
 * went inactive first. A redelivery makes a finished delivery pending again.
 */
export type DeliveryStatus = 'pending' | 'retrying' | 'succeeded' | 'failed' | 'cancelled';

/**
 * One event for one webhook: the outbox row written in the same transaction as the
 * change, then the delivery log. `queued_at` is set while a job for it is in the queue.
 */
@Entity({ name: 'webhook_deliveries' })
@Index('webhook_deliveries_webhook_created_idx', ['webhookId', 'createdAt'])
// The relay's scan: deliveries not in the queue that are due.
@Index('webhook_deliveries_due_idx', ['webhookId', 'nextAttemptAt'], { where: 'queued_at IS NULL AND next_attempt_at IS NOT NULL' })
// Jobs in the queue, per webhook (the relay caps them) and by age (lost jobs are queued again).
@Index('webhook_deliveries_queued_idx', ['webhookId', 'queuedAt'], { where: 'queued_at IS NOT NULL' })
// The retention rule: finished deliveries by their last attempt (an expression index, created by its migration only).
@Index('webhook_deliveries_finished_idx', { synchronize: false })
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'webhook_deliveries_pkey' })
  id!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  @ManyToOne(() => WebhookEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'webhook_deliveries_webhook_fk' })
  webhook?: WebhookEntity;

  @Column({ type: 'varchar', length: 255 })
  owner!: string;

  /** The same for every webhook the event goes to, and the `webhook-id` header of every attempt. */
  @Column({ name: 'event_id', type: 'uuid' })
  eventId!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 64 })
  eventType!: string;

  @Column({ name: 'occurred_at', type: 'timestamptz' })
  occurredAt!: Date;

  /** The event's `data`, as json (not jsonb) so its keys keep the API's order. */
  @Column({ type: 'json' })
  data!: unknown;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** Attempts made before the current retry schedule began (a redelivery starts a new one). */
  @Column({ name: 'retry_from', type: 'integer', default: 0 })
  retryFrom!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true, default: () => 'now()' })
  nextAttemptAt!: Date | null;

  @Column({ name: 'queued_at', type: 'timestamptz', nullable: true })
  queuedAt!: Date | null;

  /** The worker claim on the next attempt (WebhookAttemptsRepository.claim); null when no worker holds one. */
  @Column({ name: 'claim_token', type: 'uuid', nullable: true })
  claimToken!: string | null;

  /** When that claim's lease ends: past it, another worker may take the attempt (its worker died mid-send). */
  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil!: Date | null;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt!: Date | null;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs!: number | null;

  @Column({ type: 'varchar', length: 1024, nullable: true })
  error!: string | null;

  /** The trace context of the request that wrote it (`traceparent[;tracestate]`): its attempts continue that trace. */
  @Column({ name: 'trace_context', type: 'varchar', length: 600, nullable: true })
  traceContext!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
