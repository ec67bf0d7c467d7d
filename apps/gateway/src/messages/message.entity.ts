import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A message sent through the gateway; `status` is its latest state, the history is in message_statuses.
 * The index serves the newest-first list and, with `status` in it, the hourly statistics without a heap read.
 */
@Entity({ name: 'messages' })
@Index('messages_phone_created_status_idx', ['phoneRef', 'createdAt', 'status'])
// One contact's thread (GET api/Conversations/{wa_id}/Messages) and its last message.
@Index('messages_thread_idx', ['phoneRef', 'waId', 'createdAt'])
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

  /** The pricing category the network reported with a status (marketing, utility, authentication, service…); null until one does. */
  @Column({ name: 'pricing_category', type: 'varchar', length: 32, nullable: true })
  pricingCategory!: string | null;

  /** Whether the network bills the message, as its statuses' `pricing` says; null until one does. */
  @Column({ type: 'boolean', nullable: true })
  billable!: boolean | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
