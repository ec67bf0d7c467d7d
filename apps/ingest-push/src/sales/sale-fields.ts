/** How a Sale field is written in the file and stored in the `sales` table. */
export type SaleFieldType = 'string' | 'float' | 'integer' | 'orderDate' | 'dateTime';

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
