import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One committed document change, written in the same statement as the change itself (so a rolled-back
 * write leaves none). `id` follows the order of writes to each document (it is drawn while the
 * document's row is locked); `seq`, the cursor, is given by the sequencer once the row is committed.
 */
@Entity({ name: 'changes' })
// The feed: a client's changes after a cursor.
@Index('changes_client_seq_idx', ['clientId', 'seq'], { where: 'seq IS NOT NULL' })
// The sequencer: committed changes still without a cursor.
@Index('changes_pending_idx', ['id'], { where: 'seq IS NULL' })
// Retention.
@Index('changes_created_idx', ['createdAt'])
export class ChangeEntity {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'changes_pkey' })
  id!: string;

  @Column({ type: 'bigint', nullable: true })
  seq!: string | null;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @Column({ type: 'varchar', length: 255 })
  environment!: string;

  @Column({ type: 'varchar', length: 255 })
  context!: string;

  @Column({ type: 'varchar', length: 255 })
  type!: string;

  @Column({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ name: 'document_id', type: 'uuid' })
  documentId!: string;

  @Column({ type: 'integer' })
  version!: number;

  @Column({ type: 'varchar', length: 16 })
  kind!: string;

  /** The document's data after the change (what field filters read). */
  @Column({ type: 'jsonb' })
  data!: Record<string, unknown>;

  /** The rest of the document as the API showed it after the change. */
  @Column({ type: 'jsonb' })
  document!: Record<string, unknown>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
