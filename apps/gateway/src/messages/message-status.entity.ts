import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One step of a message's status history; a status is recorded once (inbound notifications are deduplicated here). */
@Entity({ name: 'message_statuses' })
@Index('message_statuses_uq', ['messageId', 'status'], { unique: true })
// The retention rule: statuses by time.
@Index('message_statuses_occurred_idx', ['occurredAt'])
export class MessageStatusEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id!: string;

  @Column({ name: 'message_id', type: 'varchar', length: 255 })
  messageId!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: string;

  /** The network's errors for a failed message. */
  @Column({ type: 'jsonb', nullable: true })
  errors!: unknown[] | null;

  /** The status's `pricing`, as the network (or the sandbox's price table) reported it. */
  @Column({ type: 'jsonb', nullable: true })
  pricing!: Record<string, unknown> | null;

  /** The status's `conversation`, as the network (or the sandbox) reported it. */
  @Column({ type: 'jsonb', nullable: true })
  conversation!: Record<string, unknown> | null;

  @Column({ name: 'occurred_at', type: 'timestamptz', default: () => 'now()' })
  occurredAt!: Date;
}
