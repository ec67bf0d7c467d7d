/**
 * Checks of single Sale values, shared by the CSV and the JSON reader. Each returns null
 * when the value is fine, else the reason in one sentence. Everything that passes is
 * something PostgreSQL stores without complaint, so a COPY never fails on a value.
 */

import { isStorableText } from '@app/errors';
import { SALE_TYPES } from './sale-fields';

const FLOAT_TEXT = SALE_TYPES.float.text!;
const INTEGER_TEXT = SALE_TYPES.integer.text!;
const INT_MAX = SALE_TYPES.integer.schema.maximum!;
const ORDER_DATE = SALE_TYPES.orderDate.text!;
const DATE_TIME = SALE_TYPES.dateTime.text!;

export const FLOAT_REASON = SALE_TYPES.float.reason;
export const FLOAT_RANGE_REASON = 'is out of the range of a double-precision number';
export const INTEGER_REASON = SALE_TYPES.integer.reason;
export const ORDER_DATE_REASON = SALE_TYPES.orderDate.reason;
export const DATE_TIME_REASON = SALE_TYPES.dateTime.reason;
export const REQUIRED_REASON = 'is required';
export const TEXT_REASON = 'holds a NUL character, an unpaired surrogate or bytes that are not UTF-8';

export function floatTextProblem(text: string): string | null {
  if (!FLOAT_TEXT.test(text)) return FLOAT_REASON;
  const value = Number(text);
  // PostgreSQL refuses what overflows, and what underflows to zero (1.0e-400), as out of range.
  if (!Number.isFinite(value) || (value === 0 && /[1-9]/.test(text.split(/[eE]/)[0]))) return FLOAT_RANGE_REASON;
  return null;
}

export function integerTextProblem(text: string): string | null {
  return INTEGER_TEXT.test(text) && integerInRange(Number(text)) ? null : INTEGER_REASON;
}

export function integerInRange(value: number): boolean {
  return Number.isInteger(value) && value >= -INT_MAX - 1 && value <= INT_MAX;
}

export function orderDateProblem(text: string): string | null {
  const m = ORDER_DATE.exec(text);
  return m && realDateTime(m) ? null : ORDER_DATE_REASON;
}

export function dateTimeProblem(text: string): string | null {
  const m = DATE_TIME.exec(text);
  // Offsets beyond ±14:59 exist nowhere (and PostgreSQL refuses some of them).
  const offsetOk = m?.[7] === undefined || (Number(m[7]) <= 14 && Number(m[8]) <= 59);
  return m && offsetOk && realDateTime(m) ? null : DATE_TIME_REASON;
}

/** Text PostgreSQL cannot hold (NUL, unpaired surrogates) or that came from invalid UTF-8 (U+FFFD). */
export function unstorableText(text: string): boolean {
  return text.includes('\uFFFD') || !isStorableText(text);
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Year 1–9999 (PostgreSQL has no year 0), a day that exists in its month, a time of day without leap seconds. */
function realDateTime(m: RegExpExecArray): boolean {
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return day <= days && Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6]) <= 59;
}
