import { ApiProperty } from '@nestjs/swagger';
import { PageOf } from '../common/cursor-page.dto';
import { META_VERSION } from './webhook-registration.dto';

const TIME = { example: '2026-11-27T10:00:00.000Z' } as const;
const NULLABLE_INT = { type: 'integer', nullable: true } as const;

/** A registration as every answer shows it; which of `types`, `meta_version` and `success` come depends on the operation (as the spec shows). */
class WebhookFields {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: '15550100001' })
  phone!: string;

  @ApiProperty({ example: '106540352242922' })
  phone_id!: string;

  @ApiProperty({ example: 'https://hooks.example.com/gateway' })
  endpoint!: string;

  @ApiProperty(TIME)
  create_date!: string;

  @ApiProperty(TIME)
  update_date!: string;

  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { Authorization: 'Bearer receiver-secret' } })
  headers!: Record<string, string>;
}

/** GET api/Webhooks: each registration. */
export class WebhookView extends WebhookFields {
  @ApiProperty({ type: [String], example: ['messages'] })
  types!: string[];

  @ApiProperty({ enum: [META_VERSION] })
  meta_version!: string;
}

/** POST api/Webhooks (201). */
export class WebhookCreated extends WebhookFields {
  @ApiProperty({ type: [String], example: ['messages'] })
  types!: string[];

  @ApiProperty({ enum: [true] })
  success!: true;
}

/** PUT api/Webhooks/{id}. */
export class WebhookUpdated extends WebhookFields {
  @ApiProperty({ enum: [META_VERSION] })
  meta_version!: string;

  @ApiProperty({ enum: [true] })
  success!: true;
}

export class WebhookList {
  @ApiProperty({ type: [WebhookView] })
  webhooks!: WebhookView[];

  @ApiProperty({ enum: [true] })
  success!: true;
}

/** One delivery of an event to a webhook, as the delivery log shows it. */
export class WebhookDelivery {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  webhook_id!: string;

  @ApiProperty()
  event_id!: string;

  @ApiProperty({ example: 'messages' })
  event!: string;

  @ApiProperty({ description: 'pending, succeeded, failed…', example: 'succeeded' })
  status!: string;

  @ApiProperty({ type: 'integer' })
  attempts!: number;

  @ApiProperty({ ...NULLABLE_INT, description: "The receiver's last HTTP status." })
  response_status!: number | null;

  @ApiProperty(NULLABLE_INT)
  duration_ms!: number | null;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true })
  next_retry_at!: string | null;

  @ApiProperty({ type: String, nullable: true })
  last_attempt_at!: string | null;

  @ApiProperty(TIME)
  created_at!: string;
}

/** One attempt of a delivery. */
export class WebhookAttempt {
  @ApiProperty({ type: 'integer', example: 1 })
  attempt!: number;

  @ApiProperty({ description: 'schedule or redeliver', example: 'schedule' })
  trigger!: string;

  @ApiProperty({ enum: ['succeeded', 'failed'] })
  outcome!: 'succeeded' | 'failed';

  @ApiProperty(NULLABLE_INT)
  response_status!: number | null;

  @ApiProperty(NULLABLE_INT)
  duration_ms!: number | null;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'The first 1 KB of the answer.' })
  response_body!: string | null;

  @ApiProperty(TIME)
  attempted_at!: string;
}

export const WebhookDeliveriesPage = PageOf(WebhookDelivery, 'WebhookDeliveriesPage');
export const WebhookAttemptsPage = PageOf(WebhookAttempt, 'WebhookAttemptsPage');
