import { ValidationFailedException, type FieldErrors } from '@app/errors';

export const DEFAULT_PER_PAGE = 15;
export const MAX_PER_PAGE = 100;

export interface PageQuery {
  page: number;
  perPage: number;
  offset: number;
}

const POSITIVE_INT = /^[1-9]\d{0,8}$/;

/** Parses `page` (default 1) and `per_page` (default 15, at most 100); bad values are a 422. */
export function parsePageQuery(query: Record<string, unknown>): PageQuery {
  const errors: FieldErrors = {};
  const page = readInt(query.page, 1, 'page', errors);
  const perPage = readInt(query.per_page, DEFAULT_PER_PAGE, 'per_page', errors);
  if (!errors.per_page && perPage > MAX_PER_PAGE) errors.per_page = [`The per page field must not be greater than ${MAX_PER_PAGE}.`];
  if (Object.keys(errors).length > 0) throw new ValidationFailedException(errors);
  return { page, perPage, offset: (page - 1) * perPage };
}

function readInt(value: unknown, fallback: number, field: string, errors: FieldErrors): number {
  if (value === undefined || value === '') return fallback;
  if (typeof value === 'string' && POSITIVE_INT.test(value)) return Number(value);
  errors[field] = [`The ${field.replace('_', ' ')} field must be an integer of at least 1.`];
  return fallback;
}
