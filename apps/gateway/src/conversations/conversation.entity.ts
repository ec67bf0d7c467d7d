import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A business phone's conversation with one contact: when the contact last wrote (the service
 * window counts from it) and when the last message either way was, for the newest-first list.
 */
@Entity({ name: 'conversations' })
@Index('conversations_phone_last_idx', ['phoneRef', 'lastMessageAt', 'waId'])
export class ConversationEntity {
  @PrimaryColumn({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  /** The contact's network id (digits). */
  @PrimaryColumn({ name: 'wa_id', type: 'varchar', length: 32 })
  waId!: string;

  /** The contact's profile name, as the network last reported it. */
  @Column({ name: 'profile_name', type: 'varchar', length: 256, nullable: true })
  profileName!: string | null;

  @Column({ name: 'last_inbound_at', type: 'timestamptz', nullable: true })
  lastInboundAt!: Date | null;

  @Column({ name: 'last_message_at', type: 'timestamptz' })
  lastMessageAt!: Date;
}
