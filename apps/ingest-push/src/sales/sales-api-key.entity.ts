import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';
import { HashedCredentialColumns } from '../accounts/hashed-credential.columns';

/** An `apiKey` of the sales endpoint; only the SHA-256 of its secret is stored. */
@Entity({ name: 'sales_api_keys' })
@Index('sales_api_keys_account_idx', ['accountId'])
export class SalesApiKeyEntity extends HashedCredentialColumns {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'sales_api_keys_account_fk' })
  account?: AccountEntity;
}
