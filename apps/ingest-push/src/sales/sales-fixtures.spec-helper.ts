import { SALE_FIELD_NAMES } from './sale-fields';

/** A valid Sale as strings, the way a CSV holds it (JSON numbers are made from it by `saleJson`). */
export function saleCells(n: number, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    OrderId: `ORD-${n}`,
    OrderDate: '2024-05-31T13:45:00.123Z',
    OrderStatus: 'paid',
    OrderTotal: '120.50',
    OrderTotalQuantity: '3',
    OrderTotalWeight: '1.5',
    OrderDiscount: '0.0',
    ProductId: `P-${n % 7}`,
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
    PaymentMethods: 'pix,card',
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

/** The same Sale as JSON source (numbers written as they are in the cells, so `10.0` stays `10.0`). */
export function saleJson(cells: Record<string, string>): string {
  const parts = Object.entries(cells).map(([k, v]) => `${JSON.stringify(k)}:${NUMERIC.has(k) && v !== '' ? v : JSON.stringify(v)}`);
  return `{${parts.join(',')}}`;
}

export function csvCell(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(cells: Record<string, string>, names: readonly string[] = SALE_FIELD_NAMES): string {
  return names.map((n) => csvCell(cells[n] ?? '')).join(';');
}
