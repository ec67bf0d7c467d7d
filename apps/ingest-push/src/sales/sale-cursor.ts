/** Where a page of sale lines ended: the last line's OrderDate (microseconds, UTC), OrderId and ProductId. */
export interface SaleCursor {
  orderDate: string;
  orderId: string;
  productId: string;
}

const STORED_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** An opaque `next_cursor`: base64url of the JSON triple. */
export function encodeSaleCursor(cursor: SaleCursor): string {
  return Buffer.from(JSON.stringify([cursor.orderDate, cursor.orderId, cursor.productId])).toString('base64url');
}

/** The cursor, or null when `text` is not one this service made (so nothing unreadable reaches SQL). */
export function decodeSaleCursor(text: string): SaleCursor | null {
  if (text.length > 8192 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 3 || !value.every((v) => typeof v === 'string')) return null;
  const [orderDate, orderId, productId] = value as string[];
  if (!STORED_INSTANT.test(orderDate) || !realInstant(orderDate) || /[\0\uFFFD]/.test(orderId + productId)) return null;
  return { orderDate, orderId, productId };
}

/** A real calendar instant (Date.parse rolls 2026-02-30 over to March; PostgreSQL refuses it). */
function realInstant(text: string): boolean {
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && ms >= 0 && new Date(ms).toISOString().slice(0, 19) === text.slice(0, 19);
}
