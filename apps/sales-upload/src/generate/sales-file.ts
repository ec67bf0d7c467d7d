import { Readable } from 'node:stream';

/** The spec's Sale fields in order; the CSV header. */
export const FIELDS = [
  'OrderId',
  'OrderDate',
  'OrderStatus',
  'OrderTotal',
  'OrderTotalQuantity',
  'OrderTotalWeight',
  'OrderDiscount',
  'ProductId',
  'ProductName',
  'ProductQuantity',
  'ProductPrice',
  'ProductBrand',
  'ProductCategory',
  'ProductSubcategory',
  'StoreId',
  'StoreName',
  'StoreCity',
  'StoreState',
  'ShippingPrice',
  'DeliveryCity',
  'DeliveryState',
  'PaymentMethods',
  'VendedorName',
  'ClientId',
  'CustomerName',
  'CustomerCPF_CNPJ',
  'CustomerCity',
  'CustomerState',
  'CustomerPhone',
  'CustomerEmail',
  'CustomerBirth',
  'CustomerGender',
] as const;

export type SaleRecord = Record<string, string>;

/** Fields written as JSON numbers. */
const NUMBERS = new Set(['OrderTotal', 'OrderTotalQuantity', 'OrderTotalWeight', 'OrderDiscount', 'ProductQuantity', 'ProductPrice', 'ShippingPrice']);

/**
 * The bad rows, in turn: the field made bad and how. `columns` breaks a CSV row's column count
 * (in JSON it becomes an unknown field instead).
 */
export const INVALID: ReadonlyArray<{ field: string; value: string | null }> = [
  { field: 'ProductPrice', value: '10' },
  { field: 'OrderDate', value: '2024-02-30T10:00:00.000Z' },
  { field: 'CustomerEmail', value: '' },
  { field: 'ProductQuantity', value: '2.5' },
  { field: 'OrderDate', value: '2024-05-31 13:45:00' },
  { field: 'CustomerBirth', value: 'yesterday' },
  { field: 'OrderTotalQuantity', value: '99999999999' },
  { field: 'columns', value: null },
];

const CITIES = [
  ['São Paulo', 'SP'],
  ['Rio de Janeiro', 'RJ'],
  ['Belo Horizonte', 'MG'],
  ['Curitiba', 'PR'],
  ['Porto Alegre', 'RS'],
  ['Recife', 'PE'],
] as const;
const PRODUCTS = ['Café "Especial"; 500g', 'Notebook 14"', 'Camiseta', 'Tênis corrida', 'Livro: {Dom Casmurro}', 'Fone [bluetooth]', 'Água 1,5L'];
const STATUSES = ['paid', 'shipped', 'delivered', 'cancelled'];
const PAYMENTS = ['pix', 'credit_card', 'boleto', 'pix;credit_card'];

/** A small fast PRNG (mulberry32): the same seed gives the same file. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sale number `n` (1-based) as strings, the way a CSV holds them. */
export function saleRecord(n: number, rnd: () => number = random(n)): SaleRecord {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  const [city, state] = pick(CITIES);
  const [dcity, dstate] = pick(CITIES);
  const quantity = 1 + Math.floor(rnd() * 5);
  const price = (1 + rnd() * 500).toFixed(2);
  const when = new Date(Date.UTC(2024, 0, 1) + Math.floor(rnd() * 365 * 86400000));
  const order = Math.ceil(n / 3);
  return {
    OrderId: `ORD-${order}`,
    OrderDate: when.toISOString(),
    OrderStatus: pick(STATUSES),
    OrderTotal: (Number(price) * quantity).toFixed(2),
    OrderTotalQuantity: String(quantity),
    OrderTotalWeight: (rnd() * 10).toFixed(3),
    OrderDiscount: rnd() < 0.7 ? '0.0' : (rnd() * 20).toFixed(2),
    ProductId: `P-${n}`,
    ProductName: pick(PRODUCTS),
    ProductQuantity: String(quantity),
    ProductPrice: price,
    ProductBrand: pick(['Acme', 'Globex', 'Initech', '']),
    ProductCategory: pick(['Food', 'Electronics', 'Clothing', 'Books']),
    ProductSubcategory: pick(['Coffee', 'Laptops', 'Shirts', 'Novels']),
    StoreId: `S-${1 + (n % 50)}`,
    StoreName: `Loja ${1 + (n % 50)}`,
    StoreCity: city,
    StoreState: state,
    ShippingPrice: (rnd() * 30).toFixed(2),
    DeliveryCity: dcity,
    DeliveryState: dstate,
    PaymentMethods: pick(PAYMENTS),
    VendedorName: pick(['Ana', 'Bruno', 'Carla', 'Diego']),
    ClientId: `C-${n % 10007}`,
    CustomerName: pick(['João Silva', 'Maria Souza', 'José "Zé" Lima', 'Fernanda\nCosta']),
    CustomerCPF_CNPJ: String(10000000000 + ((n * 7919) % 89999999999)).replace(/(\d{3})(\d{3})(\d{3})(\d{2})/, '$1.$2.$3-$4'),
    CustomerCity: city,
    CustomerState: state,
    CustomerPhone: `+55 11 9${String(10000000 + (n % 89999999))}`,
    CustomerEmail: `cliente${n % 10007}@example.com`,
    CustomerBirth: `${1950 + Math.floor(rnd() * 50)}-0${1 + Math.floor(rnd() * 9)}-1${Math.floor(rnd() * 9)}T00:00:00Z`,
    CustomerGender: pick(['F', 'M', '']),
  };
}

export function csvCell(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** A Sale as a JSON object: empty fields left out, numeric fields as numbers. */
export function jsonSale(sale: SaleRecord): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(sale)) {
    if (value === '') continue;
    parts.push(`${JSON.stringify(key)}:${NUMBERS.has(key) && /^-?\d/.test(value) ? value : JSON.stringify(value)}`);
  }
  return `{${parts.join(',')}}`;
}

/** The bad row `k` (0-based among bad rows) made from a valid one. */
function spoil(sale: SaleRecord, k: number): { sale: SaleRecord; extraColumn: boolean } {
  const bad = INVALID[k % INVALID.length];
  if (bad.value !== null) return { sale: { ...sale, [bad.field]: bad.value }, extraColumn: false };
  return { sale: { ...sale, Unknown: 'x' }, extraColumn: true };
}

export interface SalesFileOptions {
  format: 'csv' | 'json';
  /** How many Sale rows (default: until `bytes`). */
  rows?: number;
  /** The most bytes the file may have (rows stop before passing it). */
  bytes?: number;
  /** Every K-th row is bad (0: none). */
  invalidEvery?: number;
  seed?: number;
  /** CSV lines end in CRLF. */
  crlf?: boolean;
  /** Receives the number of rows written. */
  made?: { rows: number };
}

/** The file as a stream of ~64 KiB chunks, generated as it is read (nothing held but one chunk). */
export function salesFile(options: SalesFileOptions): Readable {
  if (options.rows === undefined && options.bytes === undefined) throw new Error('Say how big: rows or bytes.');
  return Readable.from(chunks(options), { objectMode: false });
}

function* chunks(options: SalesFileOptions): Generator<Buffer> {
  const { format, rows = Infinity, bytes = Infinity, invalidEvery = 0, seed = 1, crlf = false } = options;
  const rnd = random(seed);
  const eol = crlf ? '\r\n' : '\n';
  let out = format === 'csv' ? FIELDS.join(';') + eol : '[\n';
  const tail = format === 'json' ? '\n]\n' : '';
  let written = Buffer.byteLength(out);
  let bad = 0;
  for (let n = 1; n <= rows; n++) {
    let sale = saleRecord(n, rnd);
    let extraColumn = false;
    if (invalidEvery > 0 && n % invalidEvery === 0) ({ sale, extraColumn } = spoil(sale, bad++));
    const row = format === 'csv' ? FIELDS.map((f) => csvCell(sale[f])).join(';') + (extraColumn ? ';x' : '') + eol : (n > 1 ? ',\n' : '') + jsonSale(sale);
    // The size is a ceiling: the file never passes it.
    const size = Buffer.byteLength(row);
    if (written + size + tail.length > bytes) break;
    written += size;
    out += row;
    if (options.made) options.made.rows = n;
    if (out.length >= 65536) {
      yield Buffer.from(out);
      out = '';
    }
  }
  yield Buffer.from(out + tail);
}

/** Bytes from e.g. `1GB`, `512MB`, `1000000`. */
export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(text);
  if (!m) throw new Error(`Not a size: ${text} (e.g. 1GB, 200MB)`);
  const units: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };
  return Math.round(Number(m[1]) * units[(m[2] || 'b').toLowerCase()]);
}
