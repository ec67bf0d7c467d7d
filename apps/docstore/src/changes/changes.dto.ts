import { ApiHideProperty, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Exclude, Expose, Transform } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';
import { ValidationFailedException } from '@app/errors';
import { CHANGE_KINDS } from '../documents/document-changes';
import { BOOLEAN_WORDS, readFilters, type FilterReading } from '../documents/document-query.dto';
import { DocumentDto } from '../documents/document.dto';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
export const DEFAULT_TIMEOUT_SECONDS = 30;
export const MAX_TIMEOUT_SECONDS = 60;
/** The largest cursor: PostgreSQL's bigint. */
const MAX_CURSOR = 9223372036854775807n;
const SEGMENT = /^[^/\u0000-\u001f\u007f]{1,255}$/;

/** Why a cursor (`since`, `Last-Event-ID`) is refused, or null. `now` is the feed's end. */
export function cursorError(value: unknown, name: string): string | null {
  if (value === undefined || value === 'now') return null;
  if (typeof value !== 'string' || !/^\d{1,19}$/.test(value) || BigInt(value) > MAX_CURSOR) {
    return `The ${name} must be a cursor from an earlier answer (digits) or now.`;
  }
  return null;
}

const integerError = (value: unknown, name: string, max: number): string | null =>
  value === undefined || (typeof value === 'string' && /^\d{1,6}$/.test(value) && Number(value) >= 1 && Number(value) <= max)
    ? null
    : `The ${name} must be an integer from 1 to ${max}.`;

const collectionError = (value: unknown): string | null =>
  value === undefined || (typeof value === 'string' && value.split('/').length <= 3 && value.split('/').every((segment) => SEGMENT.test(segment)))
    ? null
    : 'The collection must be environment, environment/context or environment/context/type.';

const ERRORS: Record<string, (value: unknown) => string | null> = {
  since: (value) => cursorError(value, 'since'),
  limit: (value) => integerError(value, 'limit', MAX_LIMIT),
  timeout: (value) => integerError(value, 'timeout', MAX_TIMEOUT_SECONDS),
  collection: collectionError,
  include_docs: (value) => (value === undefined || BOOLEAN_WORDS.includes(value as never) ? null : 'The include_docs field must be true or false.'),
  feed: (value) => (value === undefined || value === 'normal' || value === 'longpoll' ? null : 'The feed must be normal or longpoll.'),
};

/** One parameter's check, worded by ERRORS (a repeated parameter is an array, and refused). */
const IsChangesParameter = (): PropertyDecorator =>
  ValidateBy({
    name: 'isChangesParameter',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => ERRORS[args!.property](value) === null,
      defaultMessage: (args?: ValidationArguments) => ERRORS[args!.property](args!.value) ?? '',
    },
  });

/** The filters' check: a refusal names the parameter, with the other parameters' refusals beside it (as on GET DOC). */
const AreChangeFilters = (): PropertyDecorator =>
  ValidateBy({
    name: 'areChangeFilters',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const reading = value as FilterReading;
        if (Object.keys(reading.errors).length === 0) return true;
        const query = args!.object as Record<string, unknown>;
        const errors = { ...reading.errors };
        for (const [name, check] of Object.entries(ERRORS)) {
          const error = check(query[name]);
          if (error) errors[name] = [error];
        }
        throw new ValidationFailedException(errors);
      },
    },
  });

/** `GET /client/{client}/changes`: the feed's parameters, kept as text and read by `ChangesQueryDto.read`. */
@Exclude()
export class ChangesQueryDto {
  @ApiPropertyOptional({
    description: "A cursor from an earlier answer (`last_cursor` or a change's `cursor`), or `now`. Absent: from the oldest kept change.",
    example: '1042',
  })
  @Expose()
  @IsChangesParameter()
  since?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Most changes in the page.' })
  @Expose()
  @IsChangesParameter()
  limit?: string;

  @ApiPropertyOptional({
    description: 'Only this collection (environment/context/type) or the collections under a prefix of it (environment or environment/context).',
    example: 'production/shop',
  })
  @Expose()
  @IsChangesParameter()
  collection?: string;

  @ApiPropertyOptional({ type: Boolean, default: true, description: 'Each change carries the document as it became (false: the change alone).' })
  @Expose()
  @IsChangesParameter()
  include_docs?: string;

  @ApiPropertyOptional({
    enum: ['normal', 'longpoll'],
    default: 'normal',
    description: 'longpoll: when nothing is newer than since, wait for a change up to timeout seconds.',
  })
  @Expose()
  @IsChangesParameter()
  feed?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_TIMEOUT_SECONDS,
    default: DEFAULT_TIMEOUT_SECONDS,
    description: 'Seconds a long poll waits.',
  })
  @Expose()
  @IsChangesParameter()
  timeout?: string;

  /** Documented by the controller's `filter` deepObject parameter. */
  @ApiHideProperty()
  @Expose()
  @Transform(({ obj }: { obj: Record<string, unknown> }) => readFilters(obj))
  @AreChangeFilters()
  filters!: FilterReading;
}

/** One change of the feed. */
export class ChangeDto {
  @ApiProperty({ description: 'Where this change sits in the feed: resume with since=<cursor> (or as the event id).', example: '1042' })
  cursor!: string;

  @ApiProperty({ enum: CHANGE_KINDS, example: 'updated' })
  kind!: string;

  @ApiProperty({ description: 'environment/context/type', example: 'production/shop/product' })
  collection!: string;

  @ApiProperty({ example: 'sku-1' })
  key!: string;

  @ApiProperty({ format: 'uuid', description: 'The document id.' })
  id!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The version the change made (a delete keeps the version it deleted).', example: 2 })
  version!: number;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    description: 'When the change was made (its transaction began).',
    example: '2026-11-22T03:24:50.123456Z',
  })
  occurred_at!: string;

  @ApiPropertyOptional({ type: DocumentDto, description: 'The document as the change left it; absent with include_docs=false.' })
  document?: DocumentDto;
}

/** A page of the feed. */
export class ChangesPageDto {
  @ApiProperty({ type: [ChangeDto], description: 'Oldest first.' })
  changes!: ChangeDto[];

  @ApiProperty({ description: 'Resume from here: since=<last_cursor> misses nothing and repeats nothing.', example: '1042' })
  last_cursor!: string;
}

/** The final event of a stream. */
export class StreamEndDto {
  @ApiProperty({ enum: ['token_expired', 'token_revoked', 'shutdown'], description: 'Why the stream ends: reconnect (shutdown) or get a new token.' })
  reason!: string;

  @ApiProperty({ description: 'The cursor to resume from.', example: '1042' })
  last_cursor!: string;
}
