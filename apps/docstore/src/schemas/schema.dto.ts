import { ApiProperty } from '@nestjs/swagger';
import { KeepRaw } from '@app/errors';
import { IsObject } from 'class-validator';

/** A schema the document examples (DOCUMENT_BODY_EXAMPLES) satisfy. */
export const PUT_SCHEMA_EXAMPLES = {
  product: {
    summary: 'Products need a name and a price',
    value: { schema: { type: 'object', required: ['name', 'price'], properties: { name: { type: 'string', minLength: 1 }, price: { type: 'number', minimum: 0 } } } },
  },
};

export class PutSchemaDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'A JSON Schema (draft 2020-12 by default, or draft-07 via $schema).' })
  @IsObject() @KeepRaw()
  schema!: Record<string, unknown>;
}
