import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A business account on the chat network (one WABA); its cloud access token is stored encrypted. */
@Entity({ name: 'accounts' })
@Index('accounts_waba_id_uq', ['wabaId'], { unique: true, where: 'waba_id IS NOT NULL' })
export class AccountEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  name!: string;

  @Column({ name: 'waba_id', type: 'varchar', length: 64, nullable: true })
  wabaId!: string | null;

  /** Ciphertext of the Graph API access token (never the plain text). */
  @Column({ name: 'access_token', type: 'text', nullable: true })
  accessToken!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
