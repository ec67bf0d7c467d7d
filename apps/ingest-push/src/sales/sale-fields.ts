import type { SchemaObject } from '@nestjs/swagger';

/** How a Sale field is written in the file and stored in the `sales` table. */
export type SaleFieldType = 'string' | 'float' | 'integer' | 'orderDate' | 'dateTime';

/** The rule of one field type: how its text must be written, why a value is refused, and its OpenAPI schema. */
export interface SaleTypeRule {
  /** What a CSV cell (and a JSON string of a date-time) must match; null for free text. */
  text: RegExp | null;
  /** The refusal, after the field name: `ProductPrice must be …`. */
  reason: string;
  /** The value in a JSON upload. */
  schema: SchemaObject;
}

const INT_MAX = 2147483647;
const FLOAT_REASON = 'must be a number with a decimal part, such as 10.0';
const ORDER_DATE = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.\d{3}Z$/;

/**
 * The type rules the readers check (sale-values.ts) and /docs-json publishes. A float carries a decimal part:
 * `10.0` and `-3.25e2` pass, `10` and `1e3` do not (in JSON too, where the source text is read).
 */
export const SALE_TYPES: Readonly<Record<SaleFieldType, SaleTypeRule>> = {
  string: { text: null, reason: 'must be a string', schema: { type: 'string' } },
  float: {
    text: /^[+-]?\d+\.\d+(?:[eE][+-]?\d+)?$/,
    reason: FLOAT_REASON,
    schema: { type: 'number', format: 'double', description: `Written with a decimal part: it ${FLOAT_REASON} (12.5, not 12).` },
  },
  integer: {
    text: /^[+-]?\d{1,10}$/,
    reason: `must be an integer between -${INT_MAX + 1} and ${INT_MAX}`,
    schema: { type: 'integer', format: 'int32', minimum: -INT_MAX - 1, maximum: INT_MAX },
  },
  orderDate: {
    text: ORDER_DATE,
    reason: 'must be an ISO 8601 UTC date-time with milliseconds, such as 2024-05-31T13:45:00.000Z',
    schema: { type: 'string', format: 'date-time', pattern: ORDER_DATE.source, description: 'ISO 8601 with milliseconds and Z.' },
  },
  dateTime: {
    text: /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.\d{1,9})?(?:[Zz]|[+-](\d\d):(\d\d))$/,
    reason: 'must be an ISO 8601 date-time, such as 1990-05-31T00:00:00Z',
    schema: { type: 'string', format: 'date-time', description: 'RFC 3339.' },
  },
};

export interface SaleField {
  /** PascalCase, as in JSON keys and the CSV header. */
  name: string;
  /** snake_case column of the `sales` table. */
  column: string;
  type: SaleFieldType;
  required: boolean;
}

function field(name: string, column: string, type: SaleFieldType, required = false): SaleField {
  return { name, column, type, required };
}

/** The spec's 32 Sale fields, in the spec's (and the CSV header's) order. */
export const SALE_FIELDS: readonly SaleField[] = [
  field('OrderId', 'order_id', 'string', true),
  field('OrderDate', 'order_date', 'orderDate', true),
  field('OrderStatus', 'order_status', 'string', true),
  field('OrderTotal', 'order_total', 'float'),
  field('OrderTotalQuantity', 'order_total_quantity', 'integer'),
  field('OrderTotalWeight', 'order_total_weight', 'float'),
  field('OrderDiscount', 'order_discount', 'float'),
  field('ProductId', 'product_id', 'string', true),
  field('ProductName', 'product_name', 'string'),
  field('ProductQuantity', 'product_quantity', 'integer'),
  field('ProductPrice', 'product_price', 'float', true),
  field('ProductBrand', 'product_brand', 'string'),
  field('ProductCategory', 'product_category', 'string'),
  field('ProductSubcategory', 'product_subcategory', 'string'),
  field('StoreId', 'store_id', 'string', true),
  field('StoreName', 'store_name', 'string'),
  field('StoreCity', 'store_city', 'string'),
  field('StoreState', 'store_state', 'string'),
  field('ShippingPrice', 'shipping_price', 'float'),
  field('DeliveryCity', 'delivery_city', 'string'),
  field('DeliveryState', 'delivery_state', 'string'),
  field('PaymentMethods', 'payment_methods', 'string'),
  field('VendedorName', 'vendedor_name', 'string'),
  field('ClientId', 'client_id', 'string'),
  field('CustomerName', 'customer_name', 'string'),
  field('CustomerCPF_CNPJ', 'customer_cpf_cnpj', 'string', true),
  field('CustomerCity', 'customer_city', 'string'),
  field('CustomerState', 'customer_state', 'string'),
  field('CustomerPhone', 'customer_phone', 'string', true),
  field('CustomerEmail', 'customer_email', 'string', true),
  field('CustomerBirth', 'customer_birth', 'dateTime'),
  field('CustomerGender', 'customer_gender', 'string'),
];

export const SALE_FIELD_NAMES: readonly string[] = SALE_FIELDS.map((f) => f.name);

export const SALE_FIELD_INDEX: ReadonlyMap<string, number> = new Map(SALE_FIELDS.map((f, i) => [f.name, i]));

/** The staging table's and the `sales` table's data columns, in field order. */
export const SALE_COLUMNS: readonly string[] = SALE_FIELDS.map((f) => f.column);
