import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { Platform } from './push-payload';
import { PushBatchEntity } from './push-batch.entity';

/**
 * scheduled → sending (a worker claimed this attempt) → sent | invalid_token | failed | capped, or
 * back to scheduled with a later next_attempt_at when the provider asked for a retry (or the
 * batch's throttle put it off); cancelled from scheduled only; quiet from the start (quiet hours, drop).
 */
export type PushStatus = 'scheduled' | 'sending' | 'sent' | 'failed' | 'invalid_token' | 'cancelled' | 'capped' | 'quiet';
export const PUSH_STATUSES: readonly PushStatus[] = ['scheduled', 'sending', 'sent', 'failed', 'invalid_token', 'cancelled', 'capped', 'quiet'];

/**
 * One push: the outbox row written in the request's transaction, then its record.
 * `next_attempt_at` is when it is due (NULL once finished); `queued_at` is set while a job
 * for it is in Redis.
 */
@Entity({ name: 'push_items' })
@Index('push_items_batch_position_uq', ['batchId', 'position'], { unique: true })
// The relay's scan: due items not in the queue, per account (its fairness key) and platform queue.
@Index('push_items_due_idx', ['accountId', 'platform', 'nextAttemptAt'], { where: 'queued_at IS NULL AND next_attempt_at IS NOT NULL' })
// Items whose job is in the queue, per account (the relay caps them) and platform.
@Index('push_items_queued_idx', ['accountId', 'platform', 'queuedAt'], { where: 'queued_at IS NOT NULL' })
// GET /api/pushm/stats: ended pushes per account by when they ended. Not on `status`: a claim (scheduled -> sending)
// then changes no indexed column and is a HOT update (the table's fillfactor, 70, leaves room on each page; migrations only).
@Index('push_items_ended_idx', ['accountId', 'updatedAt'], { where: 'next_attempt_at IS NULL' })
// GET /api/pushm/stats: opens per account by when they happened.
@Index('push_items_opened_idx', ['accountId', 'openedAt'], { where: 'opened_at IS NOT NULL' })
export class PushItemEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'push_items_pkey' })
  id!: string;

  @Column({ name: 'batch_id', type: 'uuid' })
  batchId!: string;

  @ManyToOne(() => PushBatchEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'batch_id', foreignKeyConstraintName: 'push_items_batch_fk' })
  batch?: PushBatchEntity;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  /** Its index in the request's `pushs`. */
  @Column({ type: 'integer' })
  position!: number;

  /** `nm_envio`. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  name!: string | null;

  @Column({ type: 'varchar', length: 8 })
  platform!: Platform;

  /** `nm_push`: the FCM registration token or APNs device token. */
  @Column({ type: 'varchar', length: 1024 })
  device!: string;

  @Column({ type: 'text' })
  title!: string;

  @Column({ type: 'text' })
  body!: string;

  @Column({ name: 'url_scheme', type: 'varchar', length: 2048, nullable: true })
  urlScheme!: string | null;

  @Column({ name: 'due_at', type: 'timestamptz' })
  dueAt!: Date;

  @Column({ type: 'varchar', length: 16, default: 'scheduled' })
  status!: PushStatus;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ name: 'queued_at', type: 'timestamptz', nullable: true })
  queuedAt!: Date | null;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt!: Date | null;

  /** When a worker claimed its current attempt (status `sending`): a claim older than its lease was left by a worker that died. */
  @Column({ name: 'claimed_at', type: 'timestamptz', nullable: true })
  claimedAt!: Date | null;

  /** The provider's id of the message (FCM message name, apns-id). */
  @Column({ name: 'provider_id', type: 'varchar', length: 255, nullable: true })
  providerId!: string | null;

  @Column({ type: 'varchar', length: 1024, nullable: true })
  error!: string | null;

  /** The first open the app reported (POST /api/pushm/opened). */
  @Column({ name: 'opened_at', type: 'timestamptz', nullable: true })
  openedAt!: Date | null;

  /** The trace context of the request that accepted it (`traceparent[;tracestate]`): its sends continue that trace. */
  @Column({ name: 'trace_context', type: 'varchar', length: 600, nullable: true })
  traceContext!: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
