import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { TokenScopes } from './token-scopes';

export type TokenStatus = 'active' | 'inactive' | 'revoked';

/** An access token; only the SHA-256 of its secret is stored. */
@Entity({ name: 'tokens' })
@Index('tokens_client_created_idx', ['clientId', 'createdAt'])
export class TokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'secret_hash', type: 'bytea' })
  secretHash!: Buffer;

  @Column({ type: 'jsonb' })
  scopes!: TokenScopes;

  @Column({ type: 'varchar', length: 16, default: 'active' })
  status!: TokenStatus;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
