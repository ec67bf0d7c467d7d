import { ValidationFailedException, type FieldErrors } from '@app/errors';

export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;

export interface PageQuery {
  page: number;
  perPage: number;
  offset: number;
}

const POSITIVE_INT = /^[1-9]\d*$/;
/** The highest page a query may ask for (offsets stay far inside PostgreSQL's bigint). */
export const MAX_PAGE = 999_999_999;

/** Parses `page` (default 1, at most MAX_PAGE) and `per_page` (default 15, at most 100); bad values are a 422. */
export function parsePageQuery(query: Record<string, unknown>): PageQuery {
  const errors: FieldErrors = {};
  const page = readInt(query.page, 1, MAX_PAGE, 'page', errors);
  const perPage = readInt(query.per_page, DEFAULT_PER_PAGE, MAX_PER_PAGE, 'per_page', errors);
  if (Object.keys(errors).length > 0) throw new ValidationFailedException(errors);
  return { page, perPage, offset: (page - 1) * perPage };
}

function readInt(value: unknown, fallback: number, max: number, field: string, errors: FieldErrors): number {
  if (value === undefined || value === '') return fallback;
  const name = field.replace('_', ' ');
  if (typeof value !== 'string' || !POSITIVE_INT.test(value)) errors[field] = [`The ${name} field must be an integer of at least 1.`];
  else if (Number(value) > max) errors[field] = [`The ${name} field must not be greater than ${max}.`];
  else return Number(value);
  return fallback;
}
