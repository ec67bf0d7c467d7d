import { ValidationFailedException } from '@app/errors';
import { filterConditions, orderBy } from './document-filter.sql';
import { parseListQuery } from './document-query';

function errorsOf(query: Record<string, unknown>): Record<string, string[]> {
  try {
    parseListQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationFailedException);
    return (error as ValidationFailedException).extras.errors as Record<string, string[]>;
  }
  throw new Error('expected a validation failure');
}

describe('parseListQuery', () => {
  it('reads every operator suffix, the longest first', () => {
    const { filters } = parseListQuery({
      'filter[a]': '1', 'filter[b_gt]': '2', 'filter[c_gte]': '3', 'filter[d_lt]': '4',
      'filter[e_lte]': '5', 'filter[f_neq]': '6', 'filter[g_like]': 'x',
    });
    expect(filters.map((f) => [f.path.join('.'), f.op])).toEqual([
      ['a', 'eq'], ['b', 'gt'], ['c', 'gte'], ['d', 'lt'], ['e', 'lte'], ['f', 'neq'], ['g', 'like'],
    ]);
  });

  it('keeps underscores that are not operators and splits nested fields on dots', () => {
    const { filters } = parseListQuery({ 'filter[first_name]': 'Ana', 'filter[address.city_like]': 'lis' });
    expect(filters).toEqual([
      { path: ['first_name'], op: 'eq', value: 'Ana' },
      { path: ['address', 'city'], op: 'like', value: 'lis' },
    ]);
  });

  it('accepts the explicit bracket form for fields that end like an operator', () => {
    expect(parseListQuery({ 'filter[rate_gt][eq]': '5' }).filters).toEqual([{ path: ['rate_gt'], op: 'eq', value: '5' }]);
  });

  it('refuses filters without a field, unknown operators, repeats and bare filter', () => {
    expect(Object.keys(errorsOf({ 'filter[_gt]': '1' }))).toEqual(['filter[_gt]']);
    expect(Object.keys(errorsOf({ 'filter[]': '1' }))).toEqual(['filter[]']);
    expect(errorsOf({ 'filter[a][between]': '1' })['filter[a][between]'][0]).toContain('between');
    expect(Object.keys(errorsOf({ 'filter[a]': ['1', '2'] }))).toEqual(['filter[a]']);
    expect(Object.keys(errorsOf({ filter: 'x' }))).toEqual(['filter']);
    expect(Object.keys(errorsOf({ 'filter[a..b]': '1' }))).toEqual(['filter[a..b]']);
  });

  it('parses sort fields, directions and document columns', () => {
    expect(parseListQuery({ sort: 'price,-address.city,_created_at' }).sort).toEqual([
      { column: undefined, path: ['price'], descending: false },
      { column: undefined, path: ['address', 'city'], descending: true },
      { column: 'created_at', path: undefined, descending: false },
    ]);
    expect(Object.keys(errorsOf({ sort: 'a,,b' }))).toEqual(['sort']);
    expect(Object.keys(errorsOf({ sort: 'a,b,c,d,e,f' }))).toEqual(['sort']);
  });

  it('reads deleted as a boolean', () => {
    expect(parseListQuery({ deleted: 'true' }).deleted).toBe(true);
    expect(parseListQuery({}).deleted).toBe(false);
    expect(Object.keys(errorsOf({ deleted: 'yes' }))).toEqual(['deleted']);
  });
});

describe('filterConditions', () => {
  it('binds paths and values as parameters, never as SQL text', () => {
    const params: unknown[] = [];
    const [sql] = filterConditions([{ path: ["x'); DROP TABLE t; --"], op: 'gt', value: "'; DROP" }], params);
    expect(sql).not.toContain('DROP');
    expect(params).toEqual([["x'); DROP TABLE t; --"], "'; DROP"]);
  });

  it('matches a numeric equality as the number or the string, through containment', () => {
    const params: unknown[] = [];
    const [sql] = filterConditions([{ path: ['a', 'b'], op: 'eq', value: '10.50' }], params);
    expect(sql).toBe('(data @> $1::jsonb OR data @> $2::jsonb)');
    expect(params).toEqual(['{"a":{"b":"10.50"}}', '{"a":{"b":10.50}}']);
  });

  it('escapes LIKE wildcards so they match literally', () => {
    const params: unknown[] = [];
    filterConditions([{ path: ['a'], op: 'like', value: '50%_off' }], params);
    expect(params[1]).toBe('%50\\%\\_off%');
  });

  it('orders by the requested fields and always ends with a stable tiebreak', () => {
    const params: unknown[] = [];
    expect(orderBy([{ path: ['p'], descending: true }, { column: 'key', descending: false }], params)).toBe(
      '(data #> $1::text[]) DESC NULLS LAST, key ASC NULLS FIRST, created_at ASC, id ASC',
    );
  });
});
