import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested,
} from 'class-validator';
import { KeepRaw } from '@app/errors';
import { PATH_SEGMENT, PATH_SEGMENT_MESSAGE } from './document-path.pipe';

/** Ten years: a longer ttl is a mistake, not a wish. */
export const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;
/** Bulk requests accept up to this many items (the BULK_MAX_ITEMS setting may lower it). */
export const BULK_HARD_LIMIT = 10_000;

/** Expiry fields shared by single and bulk writes. */
class ExpiryDto {
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true })
  @IsOptional() @IsISO8601({ strict: true })
  expires_at?: string | null;

  @ApiPropertyOptional({ description: 'Seconds from now until the document expires; sets expires_at.' })
  @IsOptional() @IsInt() @Min(1) @Max(MAX_TTL_SECONDS)
  ttl?: number;
}

export class DocumentBodyDto extends ExpiryDto {
  @ApiProperty() @IsString() @IsNotEmpty()
  environment!: string;

  @ApiProperty() @IsString() @IsNotEmpty()
  context!: string;

  @ApiProperty() @IsString() @IsNotEmpty()
  type!: string;

  @ApiProperty() @IsString() @IsNotEmpty()
  key!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject() @KeepRaw()
  data!: Record<string, unknown>;
}

export class BulkItemDto extends ExpiryDto {
  @ApiProperty()
  @IsString() @MaxLength(255, { message: PATH_SEGMENT_MESSAGE }) @Matches(PATH_SEGMENT, { message: PATH_SEGMENT_MESSAGE })
  key!: string;

  @ApiProperty({ type: 'object', additionalProperties: true })
  @IsObject() @KeepRaw()
  data!: Record<string, unknown>;
}

export class BulkBodyDto {
  @ApiProperty({ type: [BulkItemDto] })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(BULK_HARD_LIMIT)
  @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => BulkItemDto)
  documents!: BulkItemDto[];
}

/** A document as the API shows it. */
export interface DocumentView {
  id: string;
  client_id: string;
  environment: string;
  context: string;
  type: string;
  key: string;
  data: Record<string, unknown>;
  version: number;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  deleted_at: string | null;
}
