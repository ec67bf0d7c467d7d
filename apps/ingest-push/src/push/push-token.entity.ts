import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';
import { HashedCredentialColumns } from '../accounts/hashed-credential.columns';

/** A bearer token of an account; only the SHA-256 of its secret is stored. */
@Entity({ name: 'push_tokens' })
@Index('push_tokens_account_idx', ['accountId'])
export class PushTokenEntity extends HashedCredentialColumns {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'push_tokens_pkey' })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'push_tokens_account_fk' })
  account?: AccountEntity;
}
