import { ApiProperty } from '@nestjs/swagger';
import { IsObject } from 'class-validator';

export class PutSchemaDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'A JSON Schema (draft 2020-12 by default, or draft-07 via $schema).' })
  @IsObject()
  schema!: Record<string, unknown>;
}
