import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';

/** What made an attempt: the retry schedule (first attempt included), or a redelivery asked for through the API. */
export type AttemptTrigger = 'schedule' | 'redeliver';

/** One request to the receiver: the delivery log's history. Append-only; pruned after WEBHOOK_ATTEMPT_RETENTION_DAYS. */
@Entity({ name: 'webhook_attempts' })
@Index('webhook_attempts_delivery_idx', ['deliveryId', 'attempt'])
@Index('webhook_attempts_attempted_idx', ['attemptedAt'])
export class WebhookAttemptEntity {
  @PrimaryGeneratedColumn({ type: 'bigint', primaryKeyConstraintName: 'webhook_attempts_pkey' })
  id!: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId!: string;

  @ManyToOne(() => WebhookDeliveryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'webhook_attempts_delivery_fk' })
  delivery?: WebhookDeliveryEntity;

  /** 1-based, counted over the delivery's whole life (redeliveries continue the count). */
  @Column({ type: 'integer' })
  attempt!: number;

  @Column({ type: 'varchar', length: 16 })
  trigger!: AttemptTrigger;

  @Column({ type: 'varchar', length: 16 })
  outcome!: 'succeeded' | 'failed';

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  @Column({ name: 'duration_ms', type: 'integer', nullable: true })
  durationMs!: number | null;

  @Column({ type: 'varchar', length: 1024, nullable: true })
  error!: string | null;

  /** The first 1 KB of the response body. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ name: 'attempted_at', type: 'timestamptz', default: () => 'now()' })
  attemptedAt!: Date;
}
