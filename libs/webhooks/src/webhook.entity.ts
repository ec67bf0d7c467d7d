import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type WebhookStatus = 'active' | 'inactive';

/** A receiver registered by a client. Lives in the schema of the app that uses the engine. */
@Entity({ name: 'webhooks' })
@Index('webhooks_client_url_uq', ['clientId', 'url'], { unique: true })
@Index('webhooks_client_created_idx', ['clientId', 'createdAt'])
export class WebhookEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'webhooks_pkey' })
  id!: string;

  @Column({ name: 'client_id', type: 'uuid' })
  clientId!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: string[];

  @Column({ type: 'varchar', length: 16, default: 'active' })
  status!: WebhookStatus;

  /** The signing secret. Kept readable, not hashed: every delivery is signed with it. */
  @Column({ type: 'varchar', length: 128 })
  secret!: string;

  /** The secret before the last rotation; it also signs until `previous_secret_expires_at`. */
  @Column({ name: 'previous_secret', type: 'varchar', length: 128, nullable: true })
  previousSecret!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  /** Extra headers sent with every delivery (the gateway lets clients set them). */
  @Column({ type: 'jsonb', default: () => `'{}'` })
  headers!: Record<string, string>;

  /** Start of the current run of failed deliveries; cleared by a success. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince!: Date | null;

  /** Why the engine set the webhook inactive (410 Gone, or failing too long); cleared when a client activates it. */
  @Column({ name: 'disabled_reason', type: 'varchar', length: 255, nullable: true })
  disabledReason!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
