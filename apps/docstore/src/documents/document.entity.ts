import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A JSON document at (client, environment, context, type, key); one row per key, soft-deleted in place. */
@Entity({ name: 'documents' })
@Index('documents_scope_key_uq', ['clientId', 'environment', 'context', 'type', 'key'], { unique: true })
@Index('documents_scope_created_idx', ['clientId', 'environment', 'context', 'type', 'createdAt', 'id'])
// GET …/stats: the client's soft deletions by time.
@Index('documents_client_deleted_idx', ['clientId', 'deletedAt'], { where: 'deleted_at IS NOT NULL' })
// GIN index for containment filters (data @> ...); TypeORM cannot describe its operator class.
@Index('documents_data_gin', { synchronize: false })
export class DocumentEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

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

  @Column({ type: 'jsonb' })
  data!: Record<string, unknown>;

  @Column({ type: 'integer', default: 1 })
  version!: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
