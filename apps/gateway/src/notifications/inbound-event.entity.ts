import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Inbound messages already taken from the network's notifications (it may send one twice). */
@Entity({ name: 'inbound_events' })
export class InboundEventEntity {
  @PrimaryColumn({ type: 'varchar', length: 300 })
  key!: string;

  @Column({ name: 'received_at', type: 'timestamptz', default: () => 'now()' })
  receivedAt!: Date;
}
