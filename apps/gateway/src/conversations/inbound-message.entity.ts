import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A message a contact sent to a business phone, as the network notified it; `read_at` is set by the business's read mark. */
@Entity({ name: 'inbound_messages' })
@Index('inbound_messages_thread_idx', ['phoneRef', 'waId', 'receivedAt'])
export class InboundMessageEntity {
  /** The network's message id (`wamid.` + ...). */
  @PrimaryColumn({ type: 'varchar', length: 255 })
  id!: string;

  @Column({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  @Column({ name: 'wa_id', type: 'varchar', length: 32 })
  waId!: string;

  @Column({ type: 'varchar', length: 32 })
  type!: string;

  /** The message object as the network sent it. */
  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  /** The network's timestamp of the message. */
  @Column({ name: 'received_at', type: 'timestamptz' })
  receivedAt!: Date;

  @Column({ name: 'read_at', type: 'timestamptz', nullable: true })
  readAt!: Date | null;
}
