import type { DocumentFilter, DocumentSort } from './document-query.dto';

/**
 * A JSON number literal that Postgres' numeric holds: the exponent and length are
 * bounded, because a literal like 1e999999 overflows numeric and would fail the query.
 * Longer or larger literals are compared as strings.
 */
const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d{1,3})?$/;
const isNumber = (value: string): boolean => value.length <= 100 && NUMBER.test(value);

/**
 * Turns filters into SQL conditions on `data`. Field paths and values are always bound
 * parameters, never spliced into the text. Equality uses containment (`data @> ...`) so
 * the GIN index serves it; a numeric value matches the number and the string.
 */
export function filterConditions(filters: DocumentFilter[], params: unknown[]): string[] {
  const bind = (value: unknown): string => `$${params.push(value)}`;
  return filters.map((filter) => {
    // Equality binds only its containment documents: an unreferenced parameter has no type and fails the query.
    if (filter.op === 'eq') return equals(filter, bind);
    const path = bind(filter.path);
    const field = `(data #> ${path}::text[])`;
    switch (filter.op) {
      case 'neq':
        return `(${field} IS NOT NULL AND NOT ${equals(filter, bind)})`;
      case 'like':
        return `(jsonb_typeof(${field}) = 'string' AND (data #>> ${path}::text[]) ILIKE ${bind(`%${escapeLike(filter.value)}%`)})`;
      default: {
        const op = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[filter.op];
        // CASE guards the cast: Postgres does not promise to evaluate AND left to right.
        return isNumber(filter.value)
          ? `(CASE WHEN jsonb_typeof(${field}) = 'number' THEN ${field}::numeric ${op} ${bind(filter.value)}::numeric END)`
          : `(CASE WHEN jsonb_typeof(${field}) = 'string' THEN (data #>> ${path}::text[]) COLLATE "C" ${op} ${bind(filter.value)} END)`;
      }
    }
  });
}

export function orderBy(sort: DocumentSort[], params: unknown[]): string {
  const terms = sort.map((s) => {
    const expr = s.column ?? `(data #> $${params.push(s.path)}::text[])`;
    return `${expr} ${s.descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`;
  });
  return [...terms, 'created_at ASC', 'id ASC'].join(', ');
}

function equals(filter: DocumentFilter, bind: (value: unknown) => string): string {
  const candidates: unknown[] = [filter.value];
  if (isNumber(filter.value)) candidates.push(new RawJson(filter.value));
  if (filter.value === 'true' || filter.value === 'false') candidates.push(filter.value === 'true');
  if (filter.value === 'null') candidates.push(null);
  const tests = candidates.map((value) => `data @> ${bind(nest(filter.path, value))}::jsonb`);
  return tests.length === 1 ? tests[0] : `(${tests.join(' OR ')})`;
}

/** Keeps a numeric literal exactly as written (no float rounding). */
class RawJson {
  constructor(readonly text: string) {}
}

/** ['a','b'] and 5 → '{"a":{"b":5}}' */
function nest(path: string[], value: unknown): string {
  const leaf = value instanceof RawJson ? value.text : JSON.stringify(value);
  return path.reduceRight((inner, segment) => `{${JSON.stringify(segment)}:${inner}}`, leaf);
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
