import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The first answer to a send carrying an Idempotency-Key, per phone; `response` is null while the send is under way. */
@Entity({ name: 'idempotency_keys' })
@Index('idempotency_keys_created_idx', ['createdAt'])
export class IdempotencyKeyEntity {
  @PrimaryColumn({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ name: 'request_hash', type: 'bytea' })
  requestHash!: Buffer;

  @Column({ type: 'jsonb', nullable: true })
  response!: unknown;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
