import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';

/**
 * One erasure of a customer's personal data (LGPD art. 18), kept without that data: the customer is
 * a keyed hash (HMAC-SHA256 of the CPF/CNPJ digits, key `key_id` of ENCRYPTION_KEYS), so a later
 * upload of the same customer can be recognised and no one can read the number back.
 */
@Entity({ name: 'sales_customer_erasures' })
@Index('sales_customer_erasures_account_subject_idx', ['accountId', 'subject'])
export class CustomerErasureEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'sales_customer_erasures_pkey' })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'sales_customer_erasures_account_fk' })
  account?: AccountEntity;

  /** Hex HMAC-SHA256 of the CPF/CNPJ digits. */
  @Column({ type: 'text' })
  subject!: string;

  /** The ENCRYPTION_KEYS id whose key made `subject`. */
  @Column({ name: 'key_id', type: 'varchar', length: 32 })
  keyId!: string;

  /** The sales API key that asked. */
  @Column({ name: 'api_key_id', type: 'uuid' })
  apiKeyId!: string;

  @Column({ type: 'integer' })
  lines!: number;

  @Column({ type: 'integer' })
  errors!: number;

  @Column({ name: 'erased_at', type: 'timestamptz', default: () => 'now()' })
  erasedAt!: Date;
}
