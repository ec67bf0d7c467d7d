import type { RequestBodyObject, SchemaObject } from '@nestjs/swagger';
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
    'The file, streamed: a JSON array of Sale objects (application/json), or semicolon-separated CSV with a header row (application/csv or text/csv).',
  required: true,
  content: {
    'application/json': { schema: { type: 'array', items: SALE }, examples: { json: { summary: 'JSON: an array of sales', value: [EXAMPLE_SALE] } } },
    'application/csv': CSV_CONTENT,
    'text/csv': CSV_CONTENT,
  },
};
