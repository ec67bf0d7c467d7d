import { ValidationFailedException, type FieldErrors } from '@app/errors';

export type FilterOperator = 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'neq' | 'like';

export interface DocumentFilter {
  /** Path into `data`: `address.city` → ['address', 'city']. */
  path: string[];
  op: FilterOperator;
  value: string;
}

export interface DocumentSort {
  /** A document column, or a path into `data`. */
  column?: 'key' | 'version' | 'created_at' | 'updated_at';
  path?: string[];
  descending: boolean;
}

export interface DocumentListQuery {
  filters: DocumentFilter[];
  sort: DocumentSort[];
  deleted: boolean;
}

const OPERATORS: readonly FilterOperator[] = ['eq', 'gt', 'gte', 'lt', 'lte', 'neq', 'like'];
/** Suffix form: filter[price_gte]. The longest suffix wins (gte before gt). */
const SUFFIX = /^(.*)_(gte|gt|lte|lt|neq|like)$/;
/** Explicit form, for field names that end like an operator: filter[price][gte]. */
const BRACKETS = /^filter\[([^\]]*)\](?:\[([^\]]*)\])?$/;
const COLUMNS: Record<string, DocumentSort['column']> = { _key: 'key', _version: 'version', _created_at: 'created_at', _updated_at: 'updated_at' };
const MAX_FILTERS = 20;
const MAX_SORTS = 5;
const MAX_DEPTH = 16;

/** Reads filter[...], sort and deleted from the query string; anything malformed is a 422 naming the parameter. */
export function parseListQuery(query: Record<string, unknown>): DocumentListQuery {
  const errors: FieldErrors = {};
  const filters: DocumentFilter[] = [];
  for (const [name, raw] of Object.entries(query)) {
    if (name !== 'filter' && !name.startsWith('filter[')) continue;
    const filter = parseFilter(name, raw, errors);
    if (filter) filters.push(filter);
  }
  if (filters.length > MAX_FILTERS) errors.filter = [`At most ${MAX_FILTERS} filters are allowed.`];
  const sort = parseSort(query.sort, errors);
  const deleted = parseBoolean(query.deleted, 'deleted', errors);
  if (Object.keys(errors).length > 0) throw new ValidationFailedException(errors);
  return { filters, sort, deleted };
}

export function parseBoolean(raw: unknown, name: string, errors: FieldErrors): boolean {
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  errors[name] = [`The ${name} field must be true or false.`];
  return false;
}

function parseFilter(name: string, raw: unknown, errors: FieldErrors): DocumentFilter | null {
  const match = BRACKETS.exec(name);
  if (!match) {
    errors[name] = ['Filters are written filter[field]=value, filter[field_op]=value or filter[field][op]=value.'];
    return null;
  }
  if (typeof raw !== 'string') {
    errors[name] = ['A filter may be given only once.'];
    return null;
  }
  // PostgreSQL text cannot hold NUL: refuse it here rather than fail the query.
  if (name.includes('\u0000') || raw.includes('\u0000')) {
    errors[name] = ['Filters may not contain NUL characters.'];
    return null;
  }
  let field = match[1];
  let op: string = 'eq';
  if (match[2] !== undefined) {
    op = match[2];
  } else {
    const suffix = SUFFIX.exec(field);
    if (suffix) [, field, op] = suffix;
  }
  if (!OPERATORS.includes(op as FilterOperator)) {
    errors[name] = [`Unknown filter operator "${op}"; use one of ${OPERATORS.join(', ')}.`];
    return null;
  }
  const path = parsePath(field);
  if (!path) {
    errors[name] = ['The filter names no field: write a field of data, with dots for nested fields.'];
    return null;
  }
  return { path, op: op as FilterOperator, value: raw };
}

function parseSort(raw: unknown, errors: FieldErrors): DocumentSort[] {
  if (raw === undefined || raw === '') return [];
  if (typeof raw !== 'string') {
    errors.sort = ['sort may be given only once: sort=field,-other.'];
    return [];
  }
  if (raw.includes('\u0000')) {
    errors.sort = ['sort may not contain NUL characters.'];
    return [];
  }
  const parts = raw.split(',');
  if (parts.length > MAX_SORTS) {
    errors.sort = [`At most ${MAX_SORTS} sort fields are allowed.`];
    return [];
  }
  const sort: DocumentSort[] = [];
  for (const part of parts) {
    const descending = part.startsWith('-');
    const name = descending ? part.slice(1) : part;
    const column = Object.hasOwn(COLUMNS, name) ? COLUMNS[name] : undefined;
    const path = column ? undefined : parsePath(name);
    if (!column && !path) {
      errors.sort = [`"${part}" is not a field: write field, -field, nested.field or one of ${Object.keys(COLUMNS).join(', ')}.`];
      return [];
    }
    sort.push({ column, path: path ?? undefined, descending });
  }
  return sort;
}

/** `a.b.c` → ['a','b','c']; null when empty, too deep or with an empty segment. */
function parsePath(field: string): string[] | null {
  if (field.length === 0 || field.length > 255) return null;
  const path = field.split('.');
  return path.length <= MAX_DEPTH && path.every((segment) => segment.length > 0) ? path : null;
}
