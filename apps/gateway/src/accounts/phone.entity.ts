import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from './account.entity';

/** A business phone number of an account; `phone_id` is the network's phone-number id. */
@Entity({ name: 'phones' })
@Index('phones_phone_id_uq', ['phoneId'], { unique: true })
@Index('phones_account_idx', ['accountId'])
export class PhoneEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id' })
  account?: AccountEntity;

  @Column({ type: 'varchar', length: 32 })
  phone!: string;

  @Column({ name: 'phone_id', type: 'varchar', length: 64 })
  phoneId!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
