import { UnsupportedSalesMediaTypeException } from './sales.exception';
import type { SalesFormat } from './sales-copy.transform';

/** A Map, not an object literal: a Content-Type such as `constructor` must not find Object.prototype's members. */
const FORMATS = new Map<string, SalesFormat>([
  ['application/json', 'json'],
  ['application/x-ndjson', 'ndjson'],
  ['application/ndjson', 'ndjson'],
  ['application/csv', 'csv'],
  ['text/csv', 'csv'],
]);

/** The file's format from its Content-Type (a UTF-8 charset parameter is fine); anything else is a 415. */
export function salesFormat(contentType: string | undefined): SalesFormat {
  const [type, ...params] = (contentType ?? '').split(';').map((p) => p.trim().toLowerCase());
  const format = FORMATS.get(type);
  const charsetOk = params.every((p) => !p.startsWith('charset=') || /^charset="?utf-?8"?$/.test(p));
  if (!format || !charsetOk) throw new UnsupportedSalesMediaTypeException();
  return format;
}
