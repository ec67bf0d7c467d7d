import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { AttemptTrigger, AttemptView, DeliveryStatus, DeliveryView, WebhookStatus } from '@app/webhooks';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { DOCUMENT_EVENTS } from '../documents/document-events';

/** Longest webhook URL. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
/** Most entries `events` may list (repeats are merged when stored). */
export const MAX_WEBHOOK_EVENTS = DOCUMENT_EVENTS.length * 4;

const EVENTS_MESSAGE = `Each event must be one of: ${DOCUMENT_EVENTS.join(', ')}.`;

export const CREATE_WEBHOOK_EXAMPLES = {
  changes: {
    summary: 'Every change of a document',
    value: { url: 'https://hooks.example.com/docstore', events: ['document.created', 'document.updated', 'document.deleted'] },
  },
};

export const UPDATE_WEBHOOK_EXAMPLES = {
  deletions: { summary: 'Only deletions from now on', value: { events: ['document.deleted'] } },
  pause: { summary: 'Pause deliveries', value: { status: 'inactive' } },
};

export class CreateWebhookDto {
  @ApiProperty({ maxLength: WEBHOOK_URL_MAX_LENGTH, description: 'https URL of a public host (http only for WEBHOOK_ALLOWED_TARGETS).' })
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url!: string;

  @ApiProperty({ type: [String], enum: DOCUMENT_EVENTS, minItems: 1, maxItems: MAX_WEBHOOK_EVENTS })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_WEBHOOK_EVENTS)
  @IsIn(DOCUMENT_EVENTS, { each: true, message: EVENTS_MESSAGE })
  events!: string[];

  @ApiPropertyOptional({ enum: ['active', 'inactive'], default: 'active' })
  @IsOptional()
  @IsIn(['active', 'inactive'])
  status?: 'active' | 'inactive';
}

/** Every field optional: what is given changes, the rest stays. */
export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: WEBHOOK_URL_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: DOCUMENT_EVENTS, minItems: 1, maxItems: MAX_WEBHOOK_EVENTS })
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_WEBHOOK_EVENTS)
  @IsIn(DOCUMENT_EVENTS, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  @ApiPropertyOptional({ enum: ['active', 'inactive'] })
  @IsOptional()
  @IsIn(['active', 'inactive'])
  status?: 'active' | 'inactive';
}

const TIMESTAMP = { format: 'date-time', example: '2026-11-22T03:24:50.123456Z' } as const;
const NULLABLE_TIMESTAMP = { type: String, ...TIMESTAMP, nullable: true } as const;
const WEBHOOK_STATUSES: WebhookStatus[] = ['active', 'inactive'];
const DELIVERY_STATUSES: DeliveryStatus[] = ['pending', 'retrying', 'succeeded', 'failed', 'cancelled'];
const ATTEMPT_TRIGGERS: AttemptTrigger[] = ['schedule', 'redeliver'];

/** A webhook as the API shows it (its secret only on creation and rotation). */
export class WebhookDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  client_id!: string;

  @ApiProperty({ example: 'https://hooks.example.com/docstore' })
  url!: string;

  @ApiProperty({ type: [String], enum: DOCUMENT_EVENTS })
  events!: string[];

  @ApiProperty({ enum: WEBHOOK_STATUSES })
  status!: WebhookStatus;

  @ApiProperty(TIMESTAMP)
  created_at!: string;

  @ApiProperty(TIMESTAMP)
  updated_at!: string;
}

/** `POST …/webhooks`: the webhook with its signing secret, shown this once. */
export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ description: 'Signs every delivery (Standard Webhooks); shown only here and on rotation.', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
  secret!: string;
}

/** `POST …/rotate-secret`: the new secret, and until when the previous one still signs. */
export class RotatedWebhookDto extends CreatedWebhookDto {
  @ApiProperty(TIMESTAMP)
  previous_secret_expires_at!: string;
}

/** One event's delivery to a webhook. */
export class DeliveryDto implements DeliveryView {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  webhook_id!: string;

  @ApiProperty({ format: 'uuid', description: 'The event id, sent as `webhook-id`.' })
  event_id!: string;

  @ApiProperty({ enum: DOCUMENT_EVENTS })
  event!: string;

  @ApiProperty({ enum: DELIVERY_STATUSES })
  status!: DeliveryStatus;

  @ApiProperty({ type: 'integer', description: 'Attempts made so far.' })
  attempts!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: "The receiver's last HTTP status." })
  response_status!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  duration_ms!: number | null;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty(NULLABLE_TIMESTAMP)
  next_retry_at!: string | null;

  @ApiProperty(NULLABLE_TIMESTAMP)
  last_attempt_at!: string | null;

  @ApiProperty(TIMESTAMP)
  created_at!: string;
}

/** One attempt of a delivery, as the attempt log keeps it. */
export class AttemptDto implements AttemptView {
  @ApiProperty({ type: 'integer', example: 1 })
  attempt!: number;

  @ApiProperty({ enum: ATTEMPT_TRIGGERS })
  trigger!: AttemptTrigger;

  @ApiProperty({ enum: ['succeeded', 'failed'] })
  outcome!: 'succeeded' | 'failed';

  @ApiProperty({ type: 'integer', nullable: true })
  response_status!: number | null;

  @ApiProperty({ type: 'integer', nullable: true })
  duration_ms!: number | null;

  @ApiProperty({ type: String, nullable: true })
  error!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The first 1 KB of the receiver's answer." })
  response_body!: string | null;

  @ApiProperty(TIMESTAMP)
  attempted_at!: string;
}
