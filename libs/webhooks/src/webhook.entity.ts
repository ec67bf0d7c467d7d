import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type WebhookStatus = 'active' | 'inactive';

/** A webhook's first delivery window (the column's default): the fixed cap it replaced. */
export const START_WINDOW = 128;

/**
 * A receiver, registered by an owner (opaque to the engine: a client id, a business
 * phone, ...). Lives in the schema of the app that uses the engine.
 */
@Entity({ name: 'webhooks' })
@Index('webhooks_owner_url_uq', ['owner', 'url'], { unique: true })
@Index('webhooks_owner_created_idx', ['owner', 'createdAt'])
export class WebhookEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'webhooks_pkey' })
  id!: string;

  @Column({ type: 'varchar', length: 255 })
  owner!: string;

  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: string[];

  @Column({ type: 'varchar', length: 16, default: 'active' })
  status!: WebhookStatus;

  /**
   * The signing secret, encrypted (libs/secrets): it cannot be hashed, every delivery is
   * signed with it. Null when the service signs nothing.
   */
  @Column({ type: 'varchar', length: 512, nullable: true })
  secret!: string | null;

  /** The secret before the last rotation (encrypted); it also signs until `previous_secret_expires_at`. */
  @Column({ name: 'previous_secret', type: 'varchar', length: 512, nullable: true })
  previousSecret!: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  /** Extra headers sent with every delivery, set by the owner. */
  @Column({ type: 'jsonb', default: () => `'{}'` })
  headers!: Record<string, string>;

  /** Start of the current run of failed deliveries; cleared by a success. */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince!: Date | null;

  /** Why the engine set the webhook inactive (410 Gone, or failing too long); cleared when a client activates it. */
  @Column({ name: 'disabled_reason', type: 'varchar', length: 255, nullable: true })
  disabledReason!: string | null;

  /**
   * How many deliveries may be queued or in flight to it now: grows with each fast success up to
   * WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK, halves when attempts fail (DELIVERY_WINDOW in webhook-attempts.repository.ts).
   */
  @Column({ name: 'delivery_window', type: 'integer', default: START_WINDOW })
  deliveryWindow!: number;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
