import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { Platform } from './push-payload';
import { PushBatchEntity } from './push-batch.entity';

/**
 * scheduled → sending (a worker claimed this attempt) → sent | invalid_token | failed, or
 * back to scheduled with a later next_attempt_at when the provider asked for a retry;
 * cancelled from scheduled only.
 */
export type PushStatus = 'scheduled' | 'sending' | 'sent' | 'failed' | 'invalid_token' | 'cancelled';
export const PUSH_STATUSES: readonly PushStatus[] = ['scheduled', 'sending', 'sent', 'failed', 'invalid_token', 'cancelled'];

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
// GET /api/pushm/stats: finished pushes per account by when they ended.
@Index('push_items_outcome_idx', ['accountId', 'updatedAt'], { where: "status IN ('sent', 'failed', 'invalid_token')" })
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

  /** The provider's id of the message (FCM message name, apns-id). */
  @Column({ name: 'provider_id', type: 'varchar', length: 255, nullable: true })
  providerId!: string | null;

  @Column({ type: 'varchar', length: 1024, nullable: true })
  error!: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
