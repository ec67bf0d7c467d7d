import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Who sends pushes: owns tokens, batches and the record of invalid devices, and sees only its own. */
@Entity({ name: 'push_accounts' })
@Index('push_accounts_name_uq', ['name'], { unique: true })
export class PushAccountEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'push_accounts_pkey' })
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
