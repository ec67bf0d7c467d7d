import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PhoneEntity } from './phone.entity';

/** An API key (`<id>|<secret>`) of one business phone; only the SHA-256 of its secret is stored. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  @ManyToOne(() => PhoneEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'phone_ref' })
  phone?: PhoneEntity;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'key_hash', type: 'bytea' })
  keyHash!: Buffer;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
