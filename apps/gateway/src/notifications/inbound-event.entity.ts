import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Inbound messages already taken from the network's notifications (it may send one twice). */
@Entity({ name: 'inbound_events' })
// The retention rule: events by time.
@Index('inbound_events_received_idx', ['receivedAt'])
export class InboundEventEntity {
  @PrimaryColumn({ type: 'varchar', length: 300 })
  key!: string;

  @Column({ name: 'received_at', type: 'timestamptz', default: () => 'now()' })
  receivedAt!: Date;
}
