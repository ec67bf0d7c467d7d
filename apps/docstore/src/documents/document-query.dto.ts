import { ApiHideProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Exclude, Expose, Transform } from 'class-transformer';
import { ValidateBy, type ValidationArguments } from 'class-validator';
import { QuickCheck, ValidationFailedException, type FieldErrors } from '@app/errors';
import { PageQueryDto, pageParameterError } from '@app/pagination';

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

/** What the repository lists by: the list query once validated. */
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
export const MAX_FILTERS = 20;
export const MAX_SORTS = 5;
/** Deepest nested field a filter or sort may name (`a.b.c` is 3). */
export const MAX_FIELD_DEPTH = 16;
export const MAX_FIELD_LENGTH = 255;
/** The words `deleted` takes; the empty one and the absent parameter mean false. */
export const BOOLEAN_WORDS = ['true', 'false', '1', '0'] as const;

const booleanError = (value: unknown, name: string): string | null =>
  value === undefined || value === '' || BOOLEAN_WORDS.includes(value as never) ? null : `The ${name} field must be true or false.`;

/** A boolean query parameter: one of BOOLEAN_WORDS, or empty. A repeated one is an array and refused. */
export const IsBooleanWord = (): PropertyDecorator =>
  ValidateBy({
    name: 'isBooleanWord',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => booleanError(value, args?.property ?? '') === null,
      defaultMessage: (args?: ValidationArguments) => booleanError(args?.value, args?.property ?? '') ?? '',
    },
  });

/** The value of a boolean parameter already checked by `@IsBooleanWord()`. */
export const isTrueWord = (value: string | undefined): boolean => value === 'true' || value === '1';

/** `a.b.c` → ['a','b','c']; null when empty, too long, too deep or with an empty segment. */
function parsePath(field: string): string[] | null {
  if (field.length === 0 || field.length > MAX_FIELD_LENGTH) return null;
  const path = field.split('.');
  return path.length <= MAX_FIELD_DEPTH && path.every((segment) => segment.length > 0) ? path : null;
}

/** Why `sort` is refused, or null; the parts of a fine one. */
function readSort(raw: unknown): { sort: DocumentSort[]; error: string | null } {
  const refuse = (error: string) => ({ sort: [], error });
  if (raw === undefined || raw === '') return { sort: [], error: null };
  if (typeof raw !== 'string') return refuse('sort may be given only once: sort=field,-other.');
  if (raw.includes('\u0000')) return refuse('sort may not contain NUL characters.');
  const parts = raw.split(',');
  if (parts.length > MAX_SORTS) return refuse(`At most ${MAX_SORTS} sort fields are allowed.`);
  const sort: DocumentSort[] = [];
  for (const part of parts) {
    const descending = part.startsWith('-');
    const name = descending ? part.slice(1) : part;
    const column = Object.hasOwn(COLUMNS, name) ? COLUMNS[name] : undefined;
    const path = column ? undefined : parsePath(name);
    if (!column && !path) return refuse(`"${part}" is not a field: write field, -field, nested.field or one of ${Object.keys(COLUMNS).join(', ')}.`);
    sort.push({ column, path: path ?? undefined, descending });
  }
  return { sort, error: null };
}

/** `sort=field,-other`: data fields (dots for nested ones) or the document columns, at most MAX_SORTS. */
export const IsDocumentSort = (): PropertyDecorator =>
  ValidateBy({
    name: 'isDocumentSort',
    validator: {
      validate: (value: unknown) => readSort(value).error === null,
      defaultMessage: (args?: ValidationArguments) => readSort(args?.value).error ?? '',
    },
  });

/** The `filter…` parameters of a list query, read, with the refusals keyed by parameter name. */
export interface FilterReading {
  filters: DocumentFilter[];
  errors: FieldErrors;
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

/**
 * Reads the `filter…` parameters of the whole query (other names are the pipe's: declared ones are
 * checked, the bracket forms of declared ones refused, unknown ones dropped).
 */
export function readFilters(query: Record<string, unknown>): FilterReading {
  const errors: FieldErrors = {};
  const filters: DocumentFilter[] = [];
  for (const [name, raw] of Object.entries(query)) {
    if (name !== 'filter' && !name.startsWith('filter[')) continue;
    const filter = parseFilter(name, raw, errors);
    if (filter) filters.push(filter);
  }
  if (filters.length > MAX_FILTERS) errors.filter = [`At most ${MAX_FILTERS} filters are allowed.`];
  return { filters, errors };
}

/**
 * The filters' check. Filters are dynamic parameter names, and a refusal names the parameter
 * (`filter[price][between]`), which a property's validation error cannot: so a refusal is thrown
 * as the 422 itself, with the other parameters' refusals of the same request beside it.
 */
export const AreDocumentFilters = (): PropertyDecorator =>
  ValidateBy({
    name: 'areDocumentFilters',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const reading = value as FilterReading;
        if (Object.keys(reading.errors).length === 0) return true;
        const query = args?.object as DocumentListQueryDto;
        const errors: FieldErrors = { ...reading.errors };
        for (const field of ['page', 'per_page'] as const) {
          const error = pageParameterError(query[field], field);
          if (error) errors[field] = [error];
        }
        const sortError = readSort(query.sort).error;
        if (sortError) errors.sort = [sortError];
        const deletedError = booleanError(query.deleted, 'deleted');
        if (deletedError) errors.deleted = [deletedError];
        throw new ValidationFailedException(errors);
      },
    },
  });

/**
 * `GET DOC`: paging, `sort`, `deleted` and any number of `filter[…]` parameters. Only the declared
 * fields are kept (`@Exclude()`): the filters, whose names vary, are read from the whole query into
 * `filters` (not `filter`, which would make every `filter[…]` the bracket form of a declared name).
 */
@Exclude()
export class DocumentListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: `field,-field: data fields (dots for nested ones) or ${Object.keys(COLUMNS).join(', ')}; at most ${MAX_SORTS}.`,
    example: '-price,name',
  })
  @Expose()
  @IsDocumentSort()
  sort?: string;

  @ApiPropertyOptional({ type: Boolean, description: 'Also list soft-deleted and expired documents.' })
  @Expose()
  @IsBooleanWord()
  deleted?: string;

  /** Documented by the controller's `filter` deepObject parameter. */
  @ApiHideProperty()
  @Expose()
  @Transform(({ obj }: { obj: Record<string, unknown> }) => readFilters(obj))
  @AreDocumentFilters()
  filters!: FilterReading;

  /** The query the repository lists by. */
  static read(query: DocumentListQueryDto): DocumentListQuery {
    return { filters: query.filters.filters, sort: readSort(query.sort).sort, deleted: isTrueWord(query.deleted) };
  }
}

/**
 * `GET DOC/{key}`: only `deleted`. On the read hot path, so a query it surely accepts (none, or a
 * lone boolean word) skips class-transformer and class-validator; anything else takes the full pass.
 */
@QuickCheck(acceptsReadQuery)
export class DocumentReadQueryDto {
  @ApiPropertyOptional({ type: Boolean, description: 'Also find a soft-deleted or expired document.' })
  @IsBooleanWord()
  deleted?: string;
}

export function acceptsReadQuery(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const names = Object.keys(value);
  return names.length === 0 || (names.length === 1 && names[0] === 'deleted' && booleanError((value as { deleted: unknown }).deleted, 'deleted') === null);
}
