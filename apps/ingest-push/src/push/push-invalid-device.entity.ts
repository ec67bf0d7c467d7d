import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AccountEntity } from '../accounts/account.entity';
import type { Platform } from './push-payload';

/** A device id the provider called unregistered or invalid: later pushes to it are skipped and reported. */
@Entity({ name: 'push_invalid_devices' })
export class PushInvalidDeviceEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid', primaryKeyConstraintName: 'push_invalid_devices_pkey' })
  accountId!: string;

  @ManyToOne(() => AccountEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'account_id', foreignKeyConstraintName: 'push_invalid_devices_account_fk' })
  account?: AccountEntity;

  @PrimaryColumn({ type: 'varchar', length: 8, primaryKeyConstraintName: 'push_invalid_devices_pkey' })
  platform!: Platform;

  @PrimaryColumn({ type: 'varchar', length: 1024, primaryKeyConstraintName: 'push_invalid_devices_pkey' })
  device!: string;

  /** The provider's answer, e.g. `fcm 404 UNREGISTERED`. */
  @Column({ type: 'varchar', length: 1024 })
  reason!: string;

  @Column({ name: 'marked_at', type: 'timestamptz', default: () => 'now()' })
  markedAt!: Date;
}
