import { SALE_FIELD_NAMES } from '../../src/sales/sale-fields';

export const FIELDS = SALE_FIELD_NAMES;

/** A valid Sale number `n` as strings, the way a CSV holds them (JSON numbers are made from them by `saleJson`). */
export function saleCells(n: number, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    OrderId: `ORD-${n}`,
    OrderDate: '2024-05-31T13:45:00.123Z',
    OrderStatus: 'paid',
    OrderTotal: '120.50',
    OrderTotalQuantity: '3',
    OrderTotalWeight: '1.5',
    OrderDiscount: '0.25',
    ProductId: `P-${n}`,
    ProductName: 'Café; "special"',
    ProductQuantity: '2',
    ProductPrice: '40.25',
    ProductBrand: 'Acme',
    ProductCategory: 'Food',
    ProductSubcategory: 'Coffee',
    StoreId: 'S-1',
    StoreName: 'Main',
    StoreCity: 'São Paulo',
    StoreState: 'SP',
    ShippingPrice: '9.90',
    DeliveryCity: 'Campinas',
    DeliveryState: 'SP',
    PaymentMethods: 'pix;card',
    VendedorName: 'Ana',
    ClientId: `C-${n}`,
    CustomerName: 'João',
    CustomerCPF_CNPJ: '123.456.789-00',
    CustomerCity: 'Campinas',
    CustomerState: 'SP',
    CustomerPhone: '+55 11 99999-0000',
    CustomerEmail: 'joao@example.com',
    CustomerBirth: '1990-02-28T00:00:00Z',
    CustomerGender: 'M',
    ...overrides,
  };
}

const NUMERIC = new Set(['OrderTotal', 'OrderTotalQuantity', 'OrderTotalWeight', 'OrderDiscount', 'ProductQuantity', 'ProductPrice', 'ShippingPrice']);

/** The same Sale as JSON source; numbers are written as the cells say, so `10.0` stays `10.0`; empty cells are left out. */
export function saleJson(cells: Record<string, string>): string {
  const parts = Object.entries(cells)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => `${JSON.stringify(k)}:${NUMERIC.has(k) ? v : JSON.stringify(v)}`);
  return `{${parts.join(',')}}`;
}

export function csvCell(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A CSV file: the header, then one line per row (LF). */
export function csvText(rows: Array<Record<string, string>>, names: readonly string[] = FIELDS): string {
  return [names.join(';'), ...rows.map((r) => names.map((n) => csvCell(r[n] ?? '')).join(';'))].join('\n') + '\n';
}
