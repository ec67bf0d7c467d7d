import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';

export type IngestionStatus = 'running' | 'completed' | 'failed';

/** One upload: its progress while it runs, its summary once done (or why it failed, with nothing kept). */
@Entity({ name: 'sales_ingestions' })
@Index('sales_ingestions_account_started_idx', ['accountId', 'startedAt'])
export class SalesIngestionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'sales_ingestions_account_fk' })
  account?: AccountEntity;

  @Column({ name: 'api_key_id', type: 'uuid' })
  apiKeyId!: string;

  @Column({ type: 'varchar', length: 8 })
  format!: string;

  @Column({ type: 'varchar', length: 16, default: 'running' })
  status!: IngestionStatus;

  @Column({ type: 'bigint', default: 0 })
  bytes!: string;

  @Column({ type: 'integer', default: 0 })
  received!: number;

  @Column({ type: 'integer', default: 0 })
  inserted!: number;

  @Column({ type: 'integer', default: 0 })
  updated!: number;

  @Column({ type: 'integer', default: 0 })
  rejected!: number;

  @Column({ name: 'error_count', type: 'integer', default: 0 })
  errorCount!: number;

  @Column({ type: 'text', nullable: true })
  failure!: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', default: () => 'now()' })
  startedAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
