import { Column } from 'typeorm';

/** What every credential table of ingest-push holds besides its id and account: only the SHA-256 of the secret is stored. */
export abstract class HashedCredentialColumns {
  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'secret_hash', type: 'bytea' })
  secretHash!: Buffer;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
