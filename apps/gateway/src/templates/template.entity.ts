import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A message template of an account, unique by name and language. */
@Entity({ name: 'templates' })
@Index('templates_account_name_language_uq', ['accountId', 'name', 'language'], { unique: true })
@Index('templates_account_created_idx', ['accountId', 'createdAt'])
export class TemplateEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @Column({ type: 'varchar', length: 512 })
  name!: string;

  @Column({ type: 'varchar', length: 16 })
  language!: string;

  @Column({ type: 'varchar', length: 16 })
  category!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: string;

  @Column({ name: 'rejected_reason', type: 'varchar', length: 64, nullable: true })
  rejectedReason!: string | null;

  @Column({ type: 'jsonb' })
  components!: unknown[];

  @Column({ name: 'allow_category_change', type: 'boolean', default: false })
  allowCategoryChange!: boolean;

  @Column({ name: 'message_send_ttl_seconds', type: 'integer', nullable: true })
  messageSendTtlSeconds!: number | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
