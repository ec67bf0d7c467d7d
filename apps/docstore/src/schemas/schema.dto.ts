import { ApiProperty } from '@nestjs/swagger';
import { KeepRaw } from '@app/errors';
import { IsObject } from 'class-validator';

export class PutSchemaDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'A JSON Schema (draft 2020-12 by default, or draft-07 via $schema).' })
  @IsObject() @KeepRaw()
  schema!: Record<string, unknown>;
}
