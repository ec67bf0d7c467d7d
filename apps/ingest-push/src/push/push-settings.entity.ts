import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';

/** An account's push rules: a frequency cap per device token and quiet hours (GET/PUT /api/pushm/settings). */
@Entity({ name: 'push_settings' })
export class PushSettingsEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid', primaryKeyConstraintName: 'push_settings_pkey' })
  accountId!: string;

  @OneToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'push_settings_account_fk' })
  account?: AccountEntity;

  /** At most this many pushes to one device token in any `cap_window_hours`; null: no cap. */
  @Column({ name: 'cap_max_pushes', type: 'integer', nullable: true })
  capMaxPushes!: number | null;

  @Column({ name: 'cap_window_hours', type: 'integer', nullable: true })
  capWindowHours!: number | null;

  /** `HH:MM` on the wall clock of each item's zone; start after end spans midnight. Null: no quiet hours. */
  @Column({ name: 'quiet_start', type: 'varchar', length: 5, nullable: true })
  quietStart!: string | null;

  @Column({ name: 'quiet_end', type: 'varchar', length: 5, nullable: true })
  quietEnd!: string | null;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
