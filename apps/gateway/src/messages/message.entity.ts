import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A message sent through the gateway; `status` is its latest state, the history is in message_statuses.
 * The index serves the newest-first list and, with `status` in it, the hourly statistics without a heap read.
 */
@Entity({ name: 'messages' })
@Index('messages_phone_created_status_idx', ['phoneRef', 'createdAt', 'status'])
export class MessageEntity {
  /** The network's message id (`wamid.` + ...). */
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  @Column({ name: 'to', type: 'varchar', length: 32 })
  to!: string;

  @Column({ name: 'wa_id', type: 'varchar', length: 32 })
  waId!: string;

  @Column({ type: 'varchar', length: 16 })
  type!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: string;

  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
