import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { PushAccountEntity } from './push-account.entity';

/** A bearer token of an account; only the SHA-256 of its secret is stored. */
@Entity({ name: 'push_tokens' })
@Index('push_tokens_account_idx', ['accountId'])
export class PushTokenEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'push_tokens_pkey' })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => PushAccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'push_tokens_account_fk' })
  account?: PushAccountEntity;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'secret_hash', type: 'bytea' })
  secretHash!: Buffer;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
