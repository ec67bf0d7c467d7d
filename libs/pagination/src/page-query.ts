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

/** The two paging parameters, each with its default and its highest value. */
export const PAGE_PARAMETERS = {
  page: { fallback: 1, max: MAX_PAGE },
  per_page: { fallback: DEFAULT_PER_PAGE, max: MAX_PER_PAGE },
} as const;
export type PageParameter = keyof typeof PAGE_PARAMETERS;

/**
 * Why a `page` or `per_page` value is refused, or null when it is fine: absent and empty take the
 * default; anything else (a repeated parameter is an array) must be a positive integer within bounds.
 * `parsePageQuery` and `@IsPageParameter()` both word their refusals with it.
 */
export function pageParameterError(value: unknown, field: PageParameter): string | null {
  if (value === undefined || value === '') return null;
  const name = field.replace('_', ' ');
  if (typeof value !== 'string' || !POSITIVE_INT.test(value)) return `The ${name} field must be an integer of at least 1.`;
  if (Number(value) > PAGE_PARAMETERS[field].max) return `The ${name} field must not be greater than ${PAGE_PARAMETERS[field].max}.`;
  return null;
}

/** Parses `page` (default 1, at most MAX_PAGE) and `per_page` (default 15, at most 100); bad values are a 422. */
export function parsePageQuery(query: Record<string, unknown>): PageQuery {
  const errors: FieldErrors = {};
  const page = readInt(query.page, 'page', errors);
  const perPage = readInt(query.per_page, 'per_page', errors);
  if (Object.keys(errors).length > 0) throw new ValidationFailedException(errors);
  return { page, perPage, offset: (page - 1) * perPage };
}

function readInt(value: unknown, field: PageParameter, errors: FieldErrors): number {
  const error = pageParameterError(value, field);
  if (error) errors[field] = [error];
  return error || value === undefined || value === '' ? PAGE_PARAMETERS[field].fallback : Number(value);
}
