// @ts-check
'use strict';
// Sale files for tests, benchmarks and trying the ingestion out, valid or with bad rows, CSV or JSON, any size:
//
//   node tools/sales-file.js --format csv|json (--rows N | --size 1GB) [--invalid-every K] [--seed S] [--crlf] [--out FILE]
//
// Writes to stdout without --out. Rows are deterministic for a seed: the same options make the same bytes.
// --invalid-every K makes every K-th row bad in one field (see INVALID below), so its line and field are known.

const fs = require('node:fs');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');

/** The spec's Sale fields in order; the CSV header. */
const FIELDS = [
  'OrderId', 'OrderDate', 'OrderStatus', 'OrderTotal', 'OrderTotalQuantity', 'OrderTotalWeight', 'OrderDiscount',
  'ProductId', 'ProductName', 'ProductQuantity', 'ProductPrice', 'ProductBrand', 'ProductCategory', 'ProductSubcategory',
  'StoreId', 'StoreName', 'StoreCity', 'StoreState', 'ShippingPrice', 'DeliveryCity', 'DeliveryState', 'PaymentMethods',
  'VendedorName', 'ClientId', 'CustomerName', 'CustomerCPF_CNPJ', 'CustomerCity', 'CustomerState', 'CustomerPhone',
  'CustomerEmail', 'CustomerBirth', 'CustomerGender',
];
/** Fields written as JSON numbers. */
const NUMBERS = new Set(['OrderTotal', 'OrderTotalQuantity', 'OrderTotalWeight', 'OrderDiscount', 'ProductQuantity', 'ProductPrice', 'ShippingPrice']);

/**
 * The bad rows, in turn: the field made bad and how. `columns` breaks a CSV row's column count
 * (in JSON it becomes an unknown field instead).
 * @type {Array<{ field: string, value: string | null }>}
 */
const INVALID = [
  { field: 'ProductPrice', value: '10' },
  { field: 'OrderDate', value: '2024-02-30T10:00:00.000Z' },
  { field: 'CustomerEmail', value: '' },
  { field: 'ProductQuantity', value: '2.5' },
  { field: 'OrderDate', value: '2024-05-31 13:45:00' },
  { field: 'CustomerBirth', value: 'yesterday' },
  { field: 'OrderTotalQuantity', value: '99999999999' },
  { field: 'columns', value: null },
];

const CITIES = [['São Paulo', 'SP'], ['Rio de Janeiro', 'RJ'], ['Belo Horizonte', 'MG'], ['Curitiba', 'PR'], ['Porto Alegre', 'RS'], ['Recife', 'PE']];
const PRODUCTS = ['Café "Especial"; 500g', 'Notebook 14"', 'Camiseta', 'Tênis corrida', 'Livro: {Dom Casmurro}', 'Fone [bluetooth]', 'Água 1,5L'];
const STATUSES = ['paid', 'shipped', 'delivered', 'cancelled'];
const PAYMENTS = ['pix', 'credit_card', 'boleto', 'pix;credit_card'];

/**
 * A small fast PRNG (mulberry32): the same seed gives the same file.
 * @param {number} seed
 */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Sale number `n` (1-based) as strings, the way a CSV holds them.
 * @param {number} n
 * @param {() => number} rnd
 * @returns {Record<string, string>}
 */
function saleRecord(n, rnd = random(n)) {
  const pick = (/** @type {any[]} */ list) => list[Math.floor(rnd() * list.length)];
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

/** @param {string} value */
function csvCell(value) {
  return /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** @param {Record<string, string>} sale */
function jsonSale(sale) {
  const parts = [];
  for (const [key, value] of Object.entries(sale)) {
    if (value === '') continue;
    parts.push(`${JSON.stringify(key)}:${NUMBERS.has(key) && /^-?\d/.test(value) ? value : JSON.stringify(value)}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * The bad row `k` (0-based among bad rows) made from a valid one: which field, and the text.
 * @param {Record<string, string>} sale
 * @param {number} k
 */
function spoil(sale, k) {
  const bad = INVALID[k % INVALID.length];
  if (bad.value !== null) return { sale: { ...sale, [bad.field]: bad.value }, field: bad.field, extraColumn: false };
  return { sale: { ...sale, Unknown: 'x' }, field: 'Unknown', extraColumn: true };
}

/**
 * @typedef {object} SalesFileOptions
 * @property {'csv' | 'json'} format
 * @property {number} [rows] how many Sale rows (default: until `bytes`)
 * @property {number} [bytes] the most bytes the file may have (rows stop before passing it)
 * @property {number} [invalidEvery] every K-th row is bad (0: none)
 * @property {number} [seed]
 * @property {boolean} [crlf] CSV lines end in CRLF
 * @property {{ rows: number }} [made] receives the number of rows written
 */

/**
 * The file as a stream of ~64 KiB chunks, generated as it is read (nothing held but one chunk).
 * @param {SalesFileOptions} options
 * @returns {Readable}
 */
function salesFile(options) {
  return Readable.from(chunks(options), { objectMode: false });
}

/** @param {SalesFileOptions} options */
function* chunks(options) {
  const { format, rows = Infinity, bytes = Infinity, invalidEvery = 0, seed = 1, crlf = false } = options;
  if (rows === Infinity && bytes === Infinity) throw new Error('Say how big: rows or bytes.');
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
    // --size is a ceiling: the file never passes it.
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

/** @param {string} text e.g. 1GB, 512MB, 1000000 */
function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(text);
  if (!m) throw new Error(`Not a size: ${text} (e.g. 1GB, 200MB)`);
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] || 'b').toLowerCase()] || 1;
  return Math.round(Number(m[1]) * unit);
}

async function main() {
  const args = process.argv.slice(2);
  /** @param {string} name */
  const value = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const format = value('--format') || 'csv';
  if (format !== 'csv' && format !== 'json') throw new Error('--format is csv or json');
  const rows = value('--rows');
  const size = value('--size');
  if (!rows && !size) throw new Error('Usage: node tools/sales-file.js --format csv|json (--rows N | --size 1GB) [--invalid-every K] [--seed S] [--crlf] [--out FILE]');
  const out = value('--out');
  /** @type {{ rows: number }} */
  const made = { rows: 0 };
  await pipeline(
    salesFile({
      format,
      rows: rows ? Number(rows) : undefined,
      bytes: size ? parseSize(size) : undefined,
      invalidEvery: Number(value('--invalid-every') || 0),
      seed: Number(value('--seed') || 1),
      crlf: args.includes('--crlf'),
      made,
    }),
    out ? fs.createWriteStream(out) : process.stdout,
  );
  if (out) process.stderr.write(`${made.rows} rows, ${fs.statSync(out).size} bytes in ${out}\n`);
}

module.exports = { FIELDS, INVALID, saleRecord, salesFile, csvCell, jsonSale, parseSize, random };

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  });
}
