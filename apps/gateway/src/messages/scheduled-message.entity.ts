import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A message to send at `send_at` (POST api/Messages with `send_at`), and the outbox row of the scheduled-send lane
 * (libs/queue): `next_attempt_at` is when it is due, `queued_at` set while a job carries it. `state` goes
 * scheduled → sending → sent or failed, or scheduled → cancelled; only `scheduled` rows are ever claimed.
 */
@Entity({ name: 'scheduled_messages' })
@Index('scheduled_messages_due_idx', ['nextAttemptAt'], { where: 'queued_at IS NULL AND next_attempt_at IS NOT NULL' })
@Index('scheduled_messages_queued_idx', ['phoneRef', 'queuedAt'], { where: 'queued_at IS NOT NULL' })
@Index('scheduled_messages_sending_idx', ['claimedAt'], { where: "state = 'sending'" })
export class ScheduledMessageEntity {
  /** `sched.` + 32 base64url characters: the id POST answers and GET and DELETE api/Messages/{id} take. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  @Column({ name: 'to', type: 'varchar', length: 32 })
  to!: string;

  @Column({ name: 'wa_id', type: 'varchar', length: 32 })
  waId!: string;

  @Column({ type: 'varchar', length: 16 })
  type!: string;

  /** The checked message (what an immediate send hands the network), sent as it is at `send_at`. */
  @Column({ type: 'jsonb' })
  request!: Record<string, unknown>;

  @Column({ name: 'send_at', type: 'timestamptz' })
  sendAt!: Date;

  @Column({ type: 'varchar', length: 16 })
  state!: string;

  /** The network's message id once sent. */
  @Column({ name: 'message_id', type: 'varchar', length: 255, nullable: true })
  messageId!: string | null;

  /** Why the send failed: the network's error object (code, message, error_data). */
  @Column({ type: 'jsonb', nullable: true })
  error!: Record<string, unknown> | null;

  @Column({ type: 'int', default: 0 })
  attempts!: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ name: 'queued_at', type: 'timestamptz', nullable: true })
  queuedAt!: Date | null;

  /** When a worker took it to send (state `sending`). */
  @Column({ name: 'claimed_at', type: 'timestamptz', nullable: true })
  claimedAt!: Date | null;

  /** The trace context of the request that scheduled it (`traceparent[;tracestate]`): its send continues that trace. */
  @Column({ name: 'trace_context', type: 'varchar', length: 600, nullable: true })
  traceContext!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
