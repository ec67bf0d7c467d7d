import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import type { FieldErrors } from '@app/errors';
import { PageOf, type Paginated } from '@app/pagination';
import { PUSH_STATUSES, type PushStatus } from './push-item.entity';
import { PLATFORMS, type Platform } from './push-payload';

const FIELD_ERRORS = {
  type: 'object' as const,
  additionalProperties: { type: 'array', items: { type: 'string' } },
  example: { nm_plataforma: ['nm_plataforma must be iOS, Android or Web (any case).'] },
};

/** An item the request refused (also kept with the batch, so a replay answers the same). */
export class RejectedItem {
  @ApiProperty({ description: 'Position in the request, from 0.', example: 3 }) index!: number;
  @ApiProperty({ ...FIELD_ERRORS, description: 'Every problem, by field name.' }) errors!: FieldErrors;
}

/** An accepted item as the POST answer lists it. */
export class AcceptedItem {
  @ApiProperty({ example: 0 }) index!: number;
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: PUSH_STATUSES, example: 'scheduled' }) status!: PushStatus;
  @ApiProperty({ format: 'date-time' }) due_at!: string;
}

const ACCEPTED_OR_REJECTED = { type: 'array' as const, items: { oneOf: [{ $ref: getSchemaPath(AcceptedItem) }, { $ref: getSchemaPath(RejectedItem) }] } };

/** 202 to POST /api/pushm/bulk: one entry per request item, in order. */
@ApiExtraModels(AcceptedItem, RejectedItem)
export class BulkPushResult {
  @ApiProperty({ format: 'uuid' }) batch_id!: string;
  @ApiProperty({ example: 3 }) accepted!: number;
  @ApiProperty({ example: 1 }) rejected!: number;
  @ApiProperty({ ...ACCEPTED_OR_REJECTED, description: 'Per request item: its id, status and due time, or its errors.' })
  items!: Array<AcceptedItem | RejectedItem>;
}

/** What one valid item would send: the text after its variables are filled in, to which device, when. */
export class PushPreview {
  @ApiProperty() index!: number;
  @ApiProperty({ enum: ['scheduled', 'quiet'], description: 'quiet: due inside quiet hours with quiet_hours "drop"; it would not be sent.' })
  status!: 'scheduled' | 'quiet';
  @ApiProperty({ enum: PLATFORMS }) platform!: Platform;
  @ApiProperty() nm_push!: string;
  @ApiProperty({ example: 'Hi Ana' }) title!: string;
  @ApiProperty({ example: 'Use BF10' }) body!: string;
  @ApiProperty({ type: String, nullable: true }) url_scheme!: string | null;
  @ApiProperty({ format: 'date-time', description: 'The UTC instant it is due (local time and quiet hours applied).' }) due_at!: string;
}

/** 200 to POST with `?dry_run=true`: the same checks, nothing stored or sent. */
@ApiExtraModels(PushPreview, RejectedItem)
export class BulkPushPreview {
  @ApiProperty({ enum: [true] }) dry_run!: true;
  @ApiProperty() accepted!: number;
  @ApiProperty() rejected!: number;
  @ApiProperty({ type: 'array', items: { oneOf: [{ $ref: getSchemaPath(PushPreview) }, { $ref: getSchemaPath(RejectedItem) }] } })
  items!: Array<PushPreview | RejectedItem>;
}

/** A batch's items counted by status: every status, 0 when none is in it. */
export class PushCounts implements Record<PushStatus, number> {
  @ApiProperty() scheduled!: number;
  @ApiProperty() sending!: number;
  @ApiProperty() sent!: number;
  @ApiProperty() failed!: number;
  @ApiProperty() invalid_token!: number;
  @ApiProperty() cancelled!: number;
  @ApiProperty({ description: "Not sent: the device token's frequency cap was reached." }) capped!: number;
  @ApiProperty({ description: 'Not sent: due inside quiet hours with quiet_hours "drop".' }) quiet!: number;
}

/** A batch as GET /api/pushm/bulk lists it. */
export class BatchSummary {
  @ApiProperty({ format: 'uuid' }) batch_id!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) cancelled_at!: string | null;
  @ApiProperty() accepted!: number;
  @ApiProperty() rejected!: number;
  @ApiProperty({ type: PushCounts }) counts!: PushCounts;
  @ApiProperty({ type: Number, nullable: true, description: 'Most sends in any 60 s; null: unlimited.' }) throttle_per_minute!: number | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the last push is expected out, from the due times and the throttle (null when nothing is to be sent).',
  })
  expected_finish_at!: string | null;
  @ApiProperty({ description: 'Pushes the app reported opened (POST /api/pushm/opened), each counted once.' }) opened!: number;
  @ApiProperty({ type: Number, nullable: true, example: 0.125, description: 'opened / sent (0 to 1); null while none is sent.' })
  open_rate!: number | null;
}

export const BatchPage = PageOf(BatchSummary, 'BatchPage');

/** An item as GET /api/pushm/bulk/{id} pages them. */
export class PushItemView {
  @ApiProperty() index!: number;
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: PUSH_STATUSES }) status!: PushStatus;
  @ApiProperty({ enum: PLATFORMS }) platform!: Platform;
  @ApiProperty() nm_push!: string;
  @ApiProperty({ description: 'The title as sent: its variables filled in.' }) title!: string;
  @ApiProperty({ description: 'The text as sent: its variables filled in.' }) body!: string;
  @ApiProperty({ type: String, nullable: true }) url_scheme!: string | null;
  @ApiProperty({ format: 'date-time' }) due_at!: string;
  @ApiProperty() attempts!: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) sent_at!: string | null;
  @ApiProperty({ type: String, nullable: true }) provider_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) error!: string | null;
}

export const PushItemPage = PageOf(PushItemView, 'PushItemPage');

/** GET /api/pushm/bulk/{id}: the summary and a page of its items. */
export class BatchDetail extends BatchSummary {
  @ApiProperty({ type: PushItemPage }) items!: Paginated<PushItemView>;
}

/** DELETE /api/pushm/bulk/{id}: the summary after the cancel. */
export class CancelledBatch extends BatchSummary {
  @ApiProperty({ description: 'Items this request cancelled (those still scheduled).' }) cancelled_now!: number;
}
