import 'reflect-metadata';
import fc from 'fast-check';
import { createValidationPipe, ValidationFailedException } from '@app/errors';
import { filterConditions, orderBy } from './document-filter.sql';
import { acceptsReadQuery, DocumentListQueryDto, DocumentReadQueryDto, type DocumentListQuery } from './document-query.dto';

const pipe = createValidationPipe();

/** The query as the global pipe hands it to the list handler, read for the repository. */
async function parseListQuery(query: Record<string, unknown>): Promise<DocumentListQuery> {
  return DocumentListQueryDto.read((await pipe.transform(query, { type: 'query', metatype: DocumentListQueryDto })) as DocumentListQueryDto);
}

async function errorsOf(query: Record<string, unknown>, metatype: object = DocumentListQueryDto): Promise<Record<string, string[]>> {
  const error = await pipe.transform(query, { type: 'query', metatype: metatype as never }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ValidationFailedException);
  return (error as ValidationFailedException).extras.errors as Record<string, string[]>;
}

describe('DocumentListQueryDto', () => {
  it('reads every operator suffix, the longest first', async () => {
    const { filters } = await parseListQuery({
      'filter[a]': '1',
      'filter[b_gt]': '2',
      'filter[c_gte]': '3',
      'filter[d_lt]': '4',
      'filter[e_lte]': '5',
      'filter[f_neq]': '6',
      'filter[g_like]': 'x',
    });
    expect(filters.map((f) => [f.path.join('.'), f.op])).toEqual([
      ['a', 'eq'],
      ['b', 'gt'],
      ['c', 'gte'],
      ['d', 'lt'],
      ['e', 'lte'],
      ['f', 'neq'],
      ['g', 'like'],
    ]);
  });

  it('keeps underscores that are not operators and splits nested fields on dots', async () => {
    const { filters } = await parseListQuery({ 'filter[first_name]': 'Ana', 'filter[address.city_like]': 'lis', page: '2', per_page: '5' });
    expect(filters).toEqual([
      { path: ['first_name'], op: 'eq', value: 'Ana' },
      { path: ['address', 'city'], op: 'like', value: 'lis' },
    ]);
  });

  it('accepts the explicit bracket form for fields that end like an operator', async () => {
    expect((await parseListQuery({ 'filter[rate_gt][eq]': '5' })).filters).toEqual([{ path: ['rate_gt'], op: 'eq', value: '5' }]);
  });

  it('refuses filters without a field, unknown operators, repeats and bare filter', async () => {
    expect(Object.keys(await errorsOf({ 'filter[_gt]': '1' }))).toEqual(['filter[_gt]']);
    expect(Object.keys(await errorsOf({ 'filter[]': '1' }))).toEqual(['filter[]']);
    expect((await errorsOf({ 'filter[a][between]': '1' }))['filter[a][between]'][0]).toContain('between');
    expect(Object.keys(await errorsOf({ 'filter[a]': ['1', '2'] }))).toEqual(['filter[a]']);
    expect(Object.keys(await errorsOf({ filter: 'x' }))).toEqual(['filter']);
    expect(Object.keys(await errorsOf({ 'filter[a..b]': '1' }))).toEqual(['filter[a..b]']);
  });

  it('reports a bad filter together with the other refused parameters', async () => {
    expect(await errorsOf({ 'filter[]': '1', sort: 'a,,b', deleted: 'maybe' })).toEqual({
      'filter[]': [expect.any(String)],
      sort: [expect.any(String)],
      deleted: ['The deleted field must be true or false.'],
    });
  });

  it('refuses the array and object forms of its own parameters, naming them as sent, and drops unknown ones', async () => {
    for (const name of ['per_page[]', 'sort[]', 'deleted[]', 'page[0]', 'sort[a]']) {
      expect(Object.keys(await errorsOf({ [name]: '1' }))).toEqual([name]);
    }
    expect(await parseListQuery({ bogus: '1', 'utm[]': 'x', 'filter[a]': '1' })).toMatchObject({ filters: [{ path: ['a'] }] });
  });

  it('parses sort fields, directions and document columns', async () => {
    expect((await parseListQuery({ sort: 'price,-address.city,_created_at' })).sort).toEqual([
      { column: undefined, path: ['price'], descending: false },
      { column: undefined, path: ['address', 'city'], descending: true },
      { column: 'created_at', path: undefined, descending: false },
    ]);
    expect(Object.keys(await errorsOf({ sort: 'a,,b' }))).toEqual(['sort']);
    expect(Object.keys(await errorsOf({ sort: 'a,b,c,d,e,f' }))).toEqual(['sort']);
    expect(Object.keys(await errorsOf({ sort: ['a', 'b'] }))).toEqual(['sort']);
  });

  it('reads deleted as a boolean', async () => {
    expect((await parseListQuery({ deleted: 'true' })).deleted).toBe(true);
    expect((await parseListQuery({ deleted: '0' })).deleted).toBe(false);
    expect((await parseListQuery({})).deleted).toBe(false);
    expect(Object.keys(await errorsOf({ deleted: 'yes' }))).toEqual(['deleted']);
    expect(Object.keys(await errorsOf({ deleted: ['true', 'true'] }))).toEqual(['deleted']);
  });
});

describe('DocumentReadQueryDto', () => {
  // A subclass carries the decorators but no quick check: the pipe validates it in full.
  class FullReadQuery extends DocumentReadQueryDto {}
  const fullyValid = (value: unknown): Promise<boolean> =>
    pipe.transform(value, { type: 'query', metatype: FullReadQuery }).then(
      () => true,
      () => false,
    );

  it('refuses other parameters and array forms, naming them', async () => {
    expect(await errorsOf({ 'deleted[]': 'true' }, DocumentReadQueryDto)).toEqual({
      'deleted[]': ['The deleted parameter takes a single value: deleted[] is not accepted.'],
    });
    expect(await errorsOf({ deleted: ['true', 'false'] }, DocumentReadQueryDto)).toEqual({ deleted: ['The deleted field must be true or false.'] });
  });

  it('has a quick check that accepts only what the full validation accepts', async () => {
    const query = fc.dictionary(
      fc.constantFrom('deleted', 'deleted[]', 'page', 'constructor', 'x'),
      fc.oneof(fc.constantFrom('true', 'false', '1', '0', '', 'yes', 'TRUE'), fc.array(fc.constantFrom('true', '0'), { maxLength: 2 })),
      { maxKeys: 2 },
    );
    await fc.assert(
      fc.asyncProperty(query, async (value) => {
        if (acceptsReadQuery(value)) expect(await fullyValid({ ...value })).toBe(true);
      }),
    );
    expect(acceptsReadQuery({})).toBe(true);
    expect(acceptsReadQuery({ deleted: 'true' })).toBe(true);
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
    expect(
      orderBy(
        [
          { path: ['p'], descending: true },
          { column: 'key', descending: false },
        ],
        params,
      ),
    ).toBe('(data #> $1::text[]) DESC NULLS LAST, key ASC NULLS FIRST, created_at ASC, id ASC');
  });
});
