import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * Who owns sales rows, ingestions and API keys, and push tokens, batches and invalid devices;
 * each sees only its own. The credential CLIs name it (`--account`): one name, one account.
 */
@Entity({ name: 'accounts' })
@Index('accounts_name_uq', ['name'], { unique: true })
export class AccountEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'accounts_pkey' })
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
