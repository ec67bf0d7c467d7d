import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import type { DocumentScope } from './document-scope';

/** Path segments: 1 to 255 characters, no slash and no control characters. */
export const PATH_SEGMENT = /^[^/\u0000-\u001f\u007f]+$/;
export const PATH_SEGMENT_MESSAGE = '$property must be 1 to 255 characters without "/" or control characters.';

export class ScopePathDto {
  @ApiProperty({ format: 'uuid' })
  @IsString()
  client!: string;

  @ApiProperty()
  @IsString() @MaxLength(255, { message: PATH_SEGMENT_MESSAGE }) @Matches(PATH_SEGMENT, { message: PATH_SEGMENT_MESSAGE })
  environment!: string;

  @ApiProperty()
  @IsString() @MaxLength(255, { message: PATH_SEGMENT_MESSAGE }) @Matches(PATH_SEGMENT, { message: PATH_SEGMENT_MESSAGE })
  context!: string;

  @ApiProperty()
  @IsString() @MaxLength(255, { message: PATH_SEGMENT_MESSAGE }) @Matches(PATH_SEGMENT, { message: PATH_SEGMENT_MESSAGE })
  type!: string;
}

export class DocumentPathDto extends ScopePathDto {
  @ApiProperty()
  @IsString() @MaxLength(255, { message: PATH_SEGMENT_MESSAGE }) @Matches(PATH_SEGMENT, { message: PATH_SEGMENT_MESSAGE })
  key!: string;
}

export class HistoryPathDto extends DocumentPathDto {
  @ApiProperty({ type: 'integer' })
  @Matches(/^[1-9]\d{0,17}$/, { message: 'history_id must be a positive integer.' })
  history_id!: string;
}

export function scopeOf(path: ScopePathDto): DocumentScope {
  return { clientId: path.client.toLowerCase(), environment: path.environment, context: path.context, type: path.type };
}
