import { UnsupportedSalesMediaTypeException } from './sales.exception';
import type { SalesFormat } from './sales-copy.transform';

const FORMATS: Record<string, SalesFormat> = { 'application/json': 'json', 'application/csv': 'csv', 'text/csv': 'csv' };

/** The file's format from its Content-Type (a UTF-8 charset parameter is fine); anything else is a 415. */
export function salesFormat(contentType: string | undefined): SalesFormat {
  const [type, ...params] = (contentType ?? '').split(';').map((p) => p.trim().toLowerCase());
  const format = FORMATS[type];
  const charsetOk = params.every((p) => !p.startsWith('charset=') || /^charset="?utf-?8"?$/.test(p));
  if (!format || !charsetOk) throw new UnsupportedSalesMediaTypeException();
  return format;
}
