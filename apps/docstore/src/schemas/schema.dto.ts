import { ApiProperty } from '@nestjs/swagger';
import { KeepRaw } from '@app/errors';
import { IsObject } from 'class-validator';

/** A schema the document examples (DOCUMENT_BODY_EXAMPLES) satisfy. */
export const PUT_SCHEMA_EXAMPLES = {
  product: {
    summary: 'Products need a name and a price',
    value: {
      schema: { type: 'object', required: ['name', 'price'], properties: { name: { type: 'string', minLength: 1 }, price: { type: 'number', minimum: 0 } } },
    },
  },
};

export class PutSchemaDto {
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'A JSON Schema (draft 2020-12 by default, or draft-07 via $schema).' })
  @IsObject()
  @KeepRaw()
  schema!: Record<string, unknown>;
}

/** A collection's stored schema. */
export class SchemaDto {
  @ApiProperty({ type: 'integer', example: 7 })
  id!: number;

  @ApiProperty({ format: 'uuid' })
  client_id!: string;

  @ApiProperty({ example: 'production' })
  environment!: string;

  @ApiProperty({ example: 'shop' })
  context!: string;

  @ApiProperty({ example: 'product' })
  type!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The JSON Schema, as sent.', example: PUT_SCHEMA_EXAMPLES.product.value.schema })
  schema!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T03:24:50.123456Z' })
  created_at!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-22T03:24:50.123456Z' })
  updated_at!: string;
}
