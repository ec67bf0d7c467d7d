import type { RequestBodyObject, SchemaObject } from '@nestjs/swagger';
import { SALE_FIELDS, type SaleFieldType } from './sale-fields';

const TYPES: Record<SaleFieldType, SchemaObject> = {
  string: { type: 'string' },
  float: { type: 'number', description: 'With a decimal part (12.5, not 12).' },
  integer: { type: 'integer' },
  orderDate: { type: 'string', format: 'date-time', description: 'ISO 8601 with milliseconds and Z.' },
  dateTime: { type: 'string', format: 'date-time' },
};

const SALE: SchemaObject = {
  type: 'object',
  required: SALE_FIELDS.filter((f) => f.required).map((f) => f.name),
  properties: Object.fromEntries(SALE_FIELDS.map((f) => [f.name, TYPES[f.type]])),
};

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
  schema: { type: 'string', description: 'CSV: the header row names the fields in the order of the Sale table.' },
  examples: { csv: { summary: 'CSV: a header row and one sale', value: CSV_EXAMPLE } },
};

/**
 * The body of POST DataInserterSales/api/sales: the file itself, streamed. Each Content-Type has its own schema and
 * example (Nest's @ApiBody gives every one the same), so Try it out sends CSV as CSV and JSON as JSON.
 */
export const SALES_FILE_BODY: RequestBodyObject = {
  description: 'The file, streamed: a JSON array of Sale objects (application/json), or semicolon-separated CSV with a header row (application/csv or text/csv).',
  required: true,
  content: {
    'application/json': { schema: { type: 'array', items: SALE }, examples: { json: { summary: 'JSON: an array of sales', value: [EXAMPLE_SALE] } } },
    'application/csv': CSV_CONTENT,
    'text/csv': CSV_CONTENT,
  },
};
