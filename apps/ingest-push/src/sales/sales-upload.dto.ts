import { ApiPropertyOptional, type RequestBodyObject, type SchemaObject } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { SALE_FIELDS, SALE_TYPES } from './sale-fields';

/** One Sale record, generated from the field table the readers check against. */
const SALE: SchemaObject = {
  type: 'object',
  required: SALE_FIELDS.filter((f) => f.required).map((f) => f.name),
  properties: Object.fromEntries(SALE_FIELDS.map((f) => [f.name, SALE_TYPES[f.type].schema])),
  additionalProperties: false,
};

/** The CSV columns, from the same table: name, how its cell is written, required or not. */
const CSV_COLUMNS = SALE_FIELDS.map((f) => {
  const rule = SALE_TYPES[f.type];
  const written = rule.text === null ? 'text' : `a value that ${rule.reason}`;
  return `${f.name} (${written}${f.required ? ', required' : ''})`;
}).join('; ');

/** One sale that is stored as sent. */
const EXAMPLE_SALE: Record<string, string | number> = {
  OrderId: 'ORD-1001',
  OrderDate: '2024-05-31T13:45:00.123Z',
  OrderStatus: 'paid',
  OrderTotal: 120.5,
  ProductId: 'P-7',
  ProductName: 'Coffee beans 1 kg',
  ProductQuantity: 2,
  ProductPrice: 40.25,
  StoreId: 'S-1',
  CustomerCPF_CNPJ: '123.456.789-00',
  CustomerPhone: '+55 11 99999-0000',
  CustomerEmail: 'joao@example.com',
};

const CSV_EXAMPLE = [SALE_FIELDS.map((f) => f.name), SALE_FIELDS.map((f) => String(EXAMPLE_SALE[f.name] ?? ''))].map((row) => row.join(';')).join('\n') + '\n';

const CSV_CONTENT = {
  schema: {
    type: 'string',
    description: `CSV: a header row names the columns, in any order, optional ones may be left out; empty optional cells are null. Columns: ${CSV_COLUMNS}.`,
  },
  examples: { csv: { summary: 'CSV: a header row and one sale', value: CSV_EXAMPLE } },
};

/**
 * The body of POST DataInserterSales/api/sales: the file itself, streamed. Each Content-Type has its own schema and
 * example (Nest's @ApiBody gives every one the same), so Try it out sends CSV as CSV and JSON as JSON.
 */
export const SALES_FILE_BODY: RequestBodyObject = {
  description:
    'The file, streamed: a JSON array of Sale objects (application/json), one Sale object per line (application/x-ndjson), or semicolon-separated CSV with a header row (application/csv or text/csv). ' +
    'It may be compressed (Content-Encoding: gzip or deflate); the size limit counts its decompressed bytes.',
  required: true,
  content: {
    'application/json': { schema: { type: 'array', items: SALE }, examples: { json: { summary: 'JSON: an array of sales', value: [EXAMPLE_SALE] } } },
    'application/x-ndjson': {
      schema: { type: 'string', description: 'One Sale object (the JSON schema) per line, LF or CRLF; blank lines are skipped.' },
      examples: { ndjson: { summary: 'NDJSON: one sale per line', value: `${JSON.stringify(EXAMPLE_SALE)}\n` } },
    },
    'application/csv': CSV_CONTENT,
    'text/csv': CSV_CONTENT,
  },
};

/**
 * POST DataInserterSales/api/sales: the error budget. Above it the whole upload is rolled back (422);
 * exactly at it the upload is kept. Without either, every valid record is kept whatever the errors.
 */
export class SalesUploadQueryDto {
  @ApiPropertyOptional({
    type: 'number',
    minimum: 0,
    maximum: 1,
    example: 0.05,
    description: 'The largest share of rejected records (rejected / received) that still keeps the upload.',
  })
  @IsOptional()
  @Matches(/^(?:0(?:\.\d{1,9})?|1(?:\.0{1,9})?|\.\d{1,9})$/, { message: 'The max_error_ratio field must be a number from 0 to 1, such as 0.05.' })
  max_error_ratio?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 999_999_999,
    example: 100,
    description: 'The most rejected records that still keep the upload; one more stops it at once.',
  })
  @IsOptional()
  @Matches(/^\d{1,9}$/, { message: 'The max_errors field must be a whole number from 0 to 999999999.' })
  max_errors?: string;
}
