import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An uploaded file: its kind and type as read from its bytes, and where it is kept (sandbox) or the network's id (cloud). */
@Entity({ name: 'media' })
@Index('media_account_idx', ['accountId'])
export class MediaEntity {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @Column({ name: 'phone_ref', type: 'uuid' })
  phoneRef!: string;

  @Column({ type: 'varchar', length: 16 })
  kind!: string;

  @Column({ name: 'mime_type', type: 'varchar', length: 128 })
  mimeType!: string;

  @Column({ type: 'bigint' })
  size!: string;

  @Column({ type: 'bytea' })
  sha256!: Buffer;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
