import { IsDefined, IsOptional, IsString } from 'class-validator';
import { CommonErrorCode, InvalidPathParameterException, ValidationFailedException } from './common.exception';
import { createValidationPipe, QuickCheck } from './validation.pipe';

class NameDto {
  @IsOptional()
  @IsString()
  name?: string;
}

/** A free-form field with no DTO of its own, checked by a custom validator (like token scopes). */
class FreeFormDto {
  @IsDefined()
  scopes!: unknown;
}

/** Its quick check takes short names only; anything else is validated in full. */
@QuickCheck((value) => typeof value === 'object' && value !== null && Object.keys(value).join() === 'name' && (value as NameDto).name!.length < 3)
class QuickNameDto {
  @IsString()
  name!: string;
}

describe('createValidationPipe', () => {
  const pipe = createValidationPipe();
  const run = (body: unknown) => pipe.transform(body, { type: 'body', metatype: NameDto });

  it('accepts the known fields', async () => {
    await expect(run({ name: 'a' })).resolves.toEqual({ name: 'a' });
  });

  it('drops query parameters a query DTO does not declare, and refuses a declared one sent as an array', async () => {
    const query = (value: unknown) => pipe.transform(value, { type: 'query', metatype: NameDto });
    await expect(query({ name: 'a', utm_source: 'mail', toString: 'x' })).resolves.toEqual({ name: 'a' });
    await expect(query({ name: ['a', 'b'] })).rejects.toMatchObject({ extras: { errors: { name: ['name must be a string'] } } });
  });

  it('refuses the bracket forms of a declared query parameter, naming them as sent, and drops those of unknown ones', async () => {
    const query = (value: unknown) => pipe.transform(value, { type: 'query', metatype: NameDto });
    await expect(query({ 'name[]': 'a' })).rejects.toMatchObject({
      extras: { errors: { 'name[]': ['The name parameter takes a single value: name[] is not accepted.'] } },
    });
    await expect(query({ name: 'a', 'name[0]': 'b', 'name[x]': 'c' })).rejects.toMatchObject({
      extras: { errors: { 'name[0]': [expect.any(String)], 'name[x]': [expect.any(String)] } },
    });
    await expect(query({ name: 'a', 'utm[]': 'x', '[]': 'y' })).resolves.toEqual({ name: 'a' });
  });

  it.each(['bogus', 'prototype', 'constructor', 'toString', 'hasOwnProperty'])('refuses an unknown field named %s with 422 naming it', async (key) => {
    const failure = run(JSON.parse(`{"${key}": ""}`));
    await expect(failure).rejects.toBeInstanceOf(ValidationFailedException);
    await expect(failure).rejects.toMatchObject({ extras: { errors: { [key]: [`property ${key} should not exist`] } } });
  });

  it.each([
    [{ permissions: [], valueOf: 0 }, 'scopes.valueOf'],
    [{ rules: [{ toString: 'x' }] }, 'scopes.rules.0.toString'],
  ])('refuses a prototype-named key inside a free-form field (%j), which class-transformer would drop', async (scopes, path) => {
    const failure = pipe.transform({ scopes }, { type: 'body', metatype: FreeFormDto });
    await expect(failure).rejects.toMatchObject({ extras: { errors: { [path]: [expect.stringContaining('should not exist')] } } });
  });

  it('keeps a free-form field with ordinary keys as sent', async () => {
    await expect(pipe.transform({ scopes: { permissions: ['read'], rules: [{ a: 1 }] } }, { type: 'body', metatype: FreeFormDto })).resolves.toMatchObject({
      scopes: { permissions: ['read'], rules: [{ a: 1 }] },
    });
  });

  it("passes a body its DTO's quick check accepts on as sent, and validates the rest in full", async () => {
    const body = { name: 'ab' };
    await expect(pipe.transform(body, { type: 'body', metatype: QuickNameDto })).resolves.toBe(body);
    await expect(pipe.transform({ name: 'abcd' }, { type: 'body', metatype: QuickNameDto })).resolves.toBeInstanceOf(QuickNameDto);
    await expect(pipe.transform({ name: 5 }, { type: 'body', metatype: QuickNameDto })).rejects.toMatchObject({
      extras: { errors: { name: ['name must be a string'] } },
    });
  });

  describe('path parameters', () => {
    const param = (value: unknown, data?: string) => pipe.transform(value, { type: 'param', metatype: data ? String : Object, data });

    it.each(['\u0000', 'a\u0000b', '\ud800', 'x\udfff', '\udc00\ud800'])('refuses %j in a named parameter with 400 naming it', async (value) => {
      const failure = param(value, 'id');
      await expect(failure).rejects.toBeInstanceOf(InvalidPathParameterException);
      await expect(failure).rejects.toMatchObject({ status: 400, code: CommonErrorCode.InvalidPathParameter, parameter: 'id' });
      await expect(failure.catch((e: InvalidPathParameterException) => e.body())).resolves.toEqual({
        message: expect.stringMatching(/^The path parameter id may not hold a NUL/),
      });
    });

    it("refuses one bad value among all of a route's parameters, naming it; a wildcard's segments too", async () => {
      await expect(param({ client: 'c', key: 'k\u0000' })).rejects.toMatchObject({ parameter: 'key' });
      await expect(param({ rest: ['a', '\ud83d'] })).rejects.toMatchObject({ parameter: 'rest' });
    });

    it('passes any other text on unchanged, including paired surrogates and control characters', async () => {
      for (const value of ['', 'abc', '😀', 'é\u0001\u007f\ufffd', '%00', 'x'.repeat(10_000)]) await expect(param(value, 'id')).resolves.toBe(value);
      const all = { client: 'c', key: '😀' };
      await expect(param(all)).resolves.toEqual(all);
    });

    it('leaves query strings and bodies to their own checks', async () => {
      await expect(pipe.transform('a\u0000', { type: 'query', metatype: String, data: 'q' })).resolves.toBe('a\u0000');
    });
  });
});
