import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';

import type { RejectedItem } from './push-batch.dto';

/** One accepted POST /api/pushm/bulk. Its Idempotency-Key, if any, is unique per account. */
@Entity({ name: 'push_batches' })
@Index('push_batches_account_created_idx', ['accountId', 'createdAt'])
// The retention rules of batches and their items: batches by age.
@Index('push_batches_created_idx', ['createdAt'])
@Index('push_batches_idempotency_uq', ['accountId', 'idempotencyKey'], { unique: true, where: 'idempotency_key IS NOT NULL' })
export class PushBatchEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'push_batches_pkey' })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'push_batches_account_fk' })
  account?: AccountEntity;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true })
  idempotencyKey!: string | null;

  /** SHA-256 of the request's `pushs`: the same key with another body is refused. */
  @Column({ name: 'request_hash', type: 'bytea', nullable: true })
  requestHash!: Buffer | null;

  @Column({ type: 'integer' })
  accepted!: number;

  @Column({ type: 'integer' })
  rejected!: number;

  @Column({ type: 'jsonb', default: () => `'[]'` })
  rejections!: RejectedItem[];

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  /** Most sends of the batch in any 60 s (its throttle_per_minute, else PUSH_DEFAULT_THROTTLE_PER_MINUTE); null: unlimited. */
  @Column({ name: 'throttle_per_minute', type: 'integer', nullable: true })
  throttlePerMinute!: number | null;

  /** When its last push is expected out, given its due times and throttle (null when none is to be sent). */
  @Column({ name: 'expected_finish_at', type: 'timestamptz', nullable: true })
  expectedFinishAt!: Date | null;

  @Column({ name: 'cancelled_at', type: 'timestamptz', nullable: true })
  cancelledAt!: Date | null;
}
