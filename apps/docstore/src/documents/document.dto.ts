import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsISO8601,
  isISO8601,
  IsNotEmpty,
  IsObject,
  isObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { KeepRaw, QuickCheck } from '@app/errors';
import { PATH_SEGMENT, PATH_SEGMENT_MAX_LENGTH, PATH_SEGMENT_MESSAGE } from '../address/document-path.pipe';

/** Ten years: a longer ttl is a mistake, not a wish. */
export const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;
/** Bulk requests accept up to this many items (the BULK_MAX_ITEMS setting may lower it). */
export const BULK_HARD_LIMIT = 10_000;

/** Expiry fields shared by single and bulk writes. */
class ExpiryDto {
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional()
  @IsISO8601({ strict: true })
  expires_at?: string | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_TTL_SECONDS, description: 'Seconds from now until the document expires; sets expires_at.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_TTL_SECONDS)
  ttl?: number;
}

@QuickCheck(acceptsDocumentBody)
export class DocumentBodyDto extends ExpiryDto {
  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  environment!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  context!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  type!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  key!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject()
  @KeepRaw()
  data!: Record<string, unknown>;
}

@QuickCheck(acceptsBulkItem)
export class BulkItemDto extends ExpiryDto {
  @ApiProperty({ minLength: 1, maxLength: PATH_SEGMENT_MAX_LENGTH, pattern: PATH_SEGMENT.source })
  @IsString()
  @MaxLength(PATH_SEGMENT_MAX_LENGTH, { message: PATH_SEGMENT_MESSAGE })
  @Matches(PATH_SEGMENT, { message: PATH_SEGMENT_MESSAGE })
  key!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject()
  @KeepRaw()
  data!: Record<string, unknown>;
}

@QuickCheck(acceptsBulkBody)
export class BulkBodyDto {
  @ApiProperty({ type: [BulkItemDto], minItems: 1, maxItems: BULK_HARD_LIMIT, description: 'At most BULK_MAX_ITEMS (a setting) items.' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BULK_HARD_LIMIT)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => BulkItemDto)
  documents!: BulkItemDto[];
}

const PRODUCT = { name: 'Mug', price: 9.5, tags: ['kitchen'] };

/** Bodies that work as sent at the path parameters' examples (production/shop/product/sku-1). */
export const DOCUMENT_BODY_EXAMPLES = {
  product: { summary: 'A product', value: { environment: 'production', context: 'shop', type: 'product', key: 'sku-1', data: PRODUCT } },
  expiring: {
    summary: 'Kept for one day (ttl in seconds)',
    value: { environment: 'production', context: 'shop', type: 'product', key: 'sku-1', data: PRODUCT, ttl: 86400 },
  },
};

export const BULK_BODY_EXAMPLES = {
  products: {
    summary: 'Two products, created or updated',
    value: {
      documents: [
        { key: 'sku-1', data: PRODUCT },
        { key: 'sku-2', data: { name: 'Plate', price: 4.25 }, ttl: 86400 },
      ],
    },
  },
};

// The quick checks of the write bodies (see QuickCheck): each accepts only what the decorators
// above accept, field by field; anything else, including any field they do not know, takes the
// full validation. document.dto.spec.ts holds them to that.
const BODY_FIELDS: ReadonlySet<string> = new Set(['environment', 'context', 'type', 'key', 'data', 'expires_at', 'ttl']);
const ITEM_FIELDS: ReadonlySet<string> = new Set(['key', 'data', 'expires_at', 'ttl']);
const BULK_FIELDS: ReadonlySet<string> = new Set(['documents']);

function onlyFields(value: Record<string, unknown>, known: ReadonlySet<string>): boolean {
  for (const field of Object.keys(value)) if (!known.has(field)) return false;
  return true;
}

const filled = (value: unknown): boolean => typeof value === 'string' && value !== '';

function expiryOk(value: Record<string, unknown>): boolean {
  const { expires_at: expiresAt, ttl } = value;
  return (
    (expiresAt == null || isISO8601(expiresAt, { strict: true })) &&
    (ttl == null || (Number.isInteger(ttl) && (ttl as number) >= 1 && (ttl as number) <= MAX_TTL_SECONDS))
  );
}

export function acceptsDocumentBody(value: unknown): boolean {
  return (
    isObject<Record<string, unknown>>(value) &&
    onlyFields(value, BODY_FIELDS) &&
    filled(value.environment) &&
    filled(value.context) &&
    filled(value.type) &&
    filled(value.key) &&
    isObject(value.data) &&
    expiryOk(value)
  );
}

export function acceptsBulkItem(value: unknown): boolean {
  return (
    isObject<Record<string, unknown>>(value) &&
    onlyFields(value, ITEM_FIELDS) &&
    typeof value.key === 'string' &&
    PATH_SEGMENT.test(value.key) &&
    isObject(value.data) &&
    expiryOk(value)
  );
}

export function acceptsBulkBody(value: unknown): boolean {
  if (!isObject<Record<string, unknown>>(value) || !onlyFields(value, BULK_FIELDS)) return false;
  const documents = value.documents;
  return Array.isArray(documents) && documents.length >= 1 && documents.length <= BULK_HARD_LIMIT && documents.every(acceptsBulkItem);
}

const TIMESTAMP = { type: String, format: 'date-time', example: '2026-11-22T03:24:50.123456Z' } as const;
const NULLABLE_TIMESTAMP = { ...TIMESTAMP, nullable: true, example: null } as const;

/** A document as the API shows it (and as its webhook events carry it). */
export class DocumentDto {
  @ApiProperty({ description: 'The row id, a decimal string.', example: '42' })
  id!: string;

  @ApiProperty({ format: 'uuid', description: 'The client, in lower case.' })
  client_id!: string;

  @ApiProperty({ example: 'production' })
  environment!: string;

  @ApiProperty({ example: 'shop' })
  context!: string;

  @ApiProperty({ example: 'product' })
  type!: string;

  @ApiProperty({ example: 'sku-1' })
  key!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The JSON object stored, as sent.', example: PRODUCT })
  data!: Record<string, unknown>;

  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  version!: number;

  @ApiProperty(TIMESTAMP)
  created_at!: string;

  @ApiProperty(TIMESTAMP)
  updated_at!: string;

  @ApiProperty({ ...NULLABLE_TIMESTAMP, description: 'When it expires (then it reads as deleted); null: never.' })
  expires_at!: string | null;

  @ApiProperty({ ...NULLABLE_TIMESTAMP, description: 'When it was soft-deleted; null while live.' })
  deleted_at!: string | null;
}

/** The answer of `DELETE DOC/{key}`. */
export class DocumentDeletedDto {
  @ApiProperty({ example: 'Document deleted.' })
  message!: string;
}
