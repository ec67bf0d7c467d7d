import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';

export const INGESTION_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type IngestionStatus = (typeof INGESTION_STATUSES)[number];

/** Where a running ingestion is: reading the body, finishing its COPY, merging into `sales`. */
export const INGESTION_STAGES = ['receiving', 'storing', 'merging'] as const;
export type IngestionStage = (typeof INGESTION_STAGES)[number];

/** One upload: its progress while it runs, its summary once done (or why it failed or was cancelled, with nothing kept). */
@Entity({ name: 'sales_ingestions' })
@Index('sales_ingestions_account_started_idx', ['accountId', 'startedAt'])
// The stale-run sweep looks only at running ingestions.
@Index('sales_ingestions_running_heartbeat_idx', ['heartbeatAt'], { where: `"status" = 'running'` })
// The retention rules of ingestions and their errors: finished ingestions by time.
@Index('sales_ingestions_finished_idx', ['finishedAt'], { where: `"status" <> 'running'` })
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

  /** Row errors counted but not stored (past INGEST_MAX_STORED_ERRORS). */
  @Column({ name: 'errors_not_stored', type: 'integer', default: 0 })
  errorsNotStored!: number;

  /** Customers of this upload whose personal data had been erased before (stored again, as new data). */
  @Column({ name: 'erased_customers', type: 'integer', default: 0 })
  erasedCustomers!: number;

  @Column({ type: 'text', nullable: true })
  failure!: string | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  stage!: IngestionStage | null;

  /** Written by the running process every INGEST_PROGRESS_INTERVAL_MS; an old one means that process is gone. */
  @Column({ name: 'heartbeat_at', type: 'timestamptz', default: () => 'now()' })
  heartbeatAt!: Date;

  /** Set by DELETE …/ingestions/{id}; the process running the upload reads it with its heartbeat. */
  @Column({ name: 'cancel_requested', type: 'boolean', default: false })
  cancelRequested!: boolean;

  @Column({ name: 'started_at', type: 'timestamptz', default: () => 'now()' })
  startedAt!: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;
}
