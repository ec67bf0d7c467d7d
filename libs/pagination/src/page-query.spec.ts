import 'reflect-metadata';
import { createValidationPipe, ValidationFailedException } from '@app/errors';
import { parsePageQuery } from './page-query';
import { PageQueryDto } from './page-query.dto';

const failure = (query: Record<string, unknown>): ValidationFailedException => {
  try {
    parsePageQuery(query);
  } catch (error) {
    return error as ValidationFailedException;
  }
  throw new Error('expected a validation failure');
};

describe('parsePageQuery', () => {
  it('defaults to page 1 of 15', () => {
    expect(parsePageQuery({})).toEqual({ page: 1, perPage: 15, offset: 0 });
    expect(parsePageQuery({ page: '', per_page: '' })).toEqual({ page: 1, perPage: 15, offset: 0 });
  });

  it('reads page and per_page and computes the offset', () => {
    expect(parsePageQuery({ page: '3', per_page: '20' })).toEqual({ page: 3, perPage: 20, offset: 40 });
    expect(parsePageQuery({ per_page: '100' })).toEqual({ page: 1, perPage: 100, offset: 0 });
  });

  it.each([
    ['per_page 0', { per_page: '0' }, 'per_page'],
    ['per_page over 100', { per_page: '101' }, 'per_page'],
    ['a non-integer per_page', { per_page: '2.5' }, 'per_page'],
    ['a negative per_page', { per_page: '-1' }, 'per_page'],
    ['page 0', { page: '0' }, 'page'],
    ['a word for page', { page: 'two' }, 'page'],
    ['a leading zero', { page: '01' }, 'page'],
    ['a repeated page', { page: ['1', '2'] }, 'page'],
    ['a huge page', { page: '99999999999' }, 'page'],
  ])('refuses %s with a 422 naming the field', (_, query, field) => {
    const error = failure(query);
    expect(error).toBeInstanceOf(ValidationFailedException);
    expect(error.status).toBe(422);
    expect(error.body()).toEqual({ message: expect.any(String), errors: { [field]: [expect.any(String)] } });
  });

  it('names the highest value a too-large page or per_page may have', () => {
    expect(failure({ page: '1000000000' }).body().errors).toEqual({ page: ['The page field must not be greater than 999999999.'] });
    expect(failure({ per_page: '99999999999999999999' }).body().errors).toEqual({ per_page: ['The per page field must not be greater than 100.'] });
    expect(parsePageQuery({ page: '999999999', per_page: '100' })).toEqual({ page: 999_999_999, perPage: 100, offset: 99_999_999_800 });
  });

  it('reports both fields at once', () => {
    expect(Object.keys(failure({ page: 'x', per_page: '0' }).body().errors as object).sort()).toEqual(['page', 'per_page']);
  });
});

describe('PageQueryDto', () => {
  const pipe = createValidationPipe();
  const errorsOf = (query: Record<string, unknown>): Promise<unknown> =>
    pipe.transform(query, { type: 'query', metatype: PageQueryDto }).then(
      () => null,
      (error: ValidationFailedException) => error.body().errors,
    );

  it('accepts what parsePageQuery accepts', async () => {
    await expect(pipe.transform({ page: '3', per_page: '' }, { type: 'query', metatype: PageQueryDto })).resolves.toMatchObject({ page: '3', per_page: '' });
    expect(await errorsOf({})).toBeNull();
  });

  it('words its refusals as parsePageQuery does, array forms and unknown names included', async () => {
    for (const query of [{ page: '0' }, { per_page: '101' }, { page: ['1', '2'] }, { page: 'x', per_page: '0' }]) {
      expect(await errorsOf(query)).toEqual(failure(query).body().errors);
    }
    expect(await errorsOf({ 'per_page[]': '1000' })).toEqual({ 'per_page[]': ['property per_page[] should not exist'] });
  });
});
