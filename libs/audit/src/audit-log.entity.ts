import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One change to a credential or a setting, written in the transaction of the change. Lives in the schema of the
 * app that records it. Rows are only ever inserted (and deleted by retention): no endpoint alters them.
 */
@Entity({ name: 'audit_log' })
@Index('audit_log_tenant_at_idx', ['tenantId', 'at', 'id'])
@Index('audit_log_at_idx', ['at'])
export class AuditLogEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'audit_log_pkey' })
  id!: string;

  /** The client, account or tenant whose credential or setting changed. */
  @Column({ name: 'tenant_id', type: 'varchar', length: 255 })
  tenantId!: string;

  /** The credential that made the change (`cli` for the command line). */
  @Column({ name: 'actor_id', type: 'varchar', length: 255 })
  actorId!: string;

  @Column({ name: 'actor_name', type: 'varchar', length: 255, nullable: true })
  actorName!: string | null;

  /** `<target>.<verb>`, e.g. `token.revoked`. */
  @Column({ type: 'varchar', length: 64 })
  action!: string;

  @Column({ name: 'target_type', type: 'varchar', length: 64 })
  targetType!: string;

  @Column({ name: 'target_id', type: 'varchar', length: 255 })
  targetId!: string;

  /** The client address as express sees it through TRUST_PROXY; null for the command line. */
  @Column({ type: 'inet', nullable: true })
  ip!: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  at!: Date;

  /** The changed fields before and after, secrets masked. */
  @Column({ type: 'jsonb', nullable: true })
  before!: Record<string, unknown> | null;

  @Column({ type: 'jsonb', nullable: true })
  after!: Record<string, unknown> | null;
}
