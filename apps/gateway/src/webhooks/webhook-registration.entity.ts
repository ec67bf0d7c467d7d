import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PhoneEntity } from '../accounts/phone.entity';

/** A webhook of a business phone: which notification types go to which https endpoint, with which custom headers. */
@Entity({ name: 'webhook_registrations' })
@Index('webhook_registrations_account_idx', ['accountId', 'createdAt'])
@Index('webhook_registrations_phone_idx', ['phoneRef'])
export class WebhookRegistrationEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @Column({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  @ManyToOne(() => PhoneEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'phone_ref' })
  phone?: PhoneEntity;

  @Column({ type: 'text', array: true })
  types!: string[];

  @Column({ type: 'varchar', length: 2000 })
  endpoint!: string;

  /** The custom headers as JSON, encrypted (they often carry the receiver's credentials). */
  @Column({ type: 'text' })
  headers!: string;

  @Column({ name: 'meta_version', type: 'varchar', length: 32, default: 'LASTEST' })
  metaVersion!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
