import { IsDefined, IsOptional, IsString } from 'class-validator';
import { ValidationFailedException } from './common.exception';
import { createValidationPipe, QuickCheck } from './validation.pipe';

class NameDto {
  @IsOptional() @IsString()
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
    await expect(pipe.transform({ scopes: { permissions: ['read'], rules: [{ a: 1 }] } }, { type: 'body', metatype: FreeFormDto }))
      .resolves.toMatchObject({ scopes: { permissions: ['read'], rules: [{ a: 1 }] } });
  });

  it('passes a body its DTO\'s quick check accepts on as sent, and validates the rest in full', async () => {
    const body = { name: 'ab' };
    await expect(pipe.transform(body, { type: 'body', metatype: QuickNameDto })).resolves.toBe(body);
    await expect(pipe.transform({ name: 'abcd' }, { type: 'body', metatype: QuickNameDto })).resolves.toBeInstanceOf(QuickNameDto);
    await expect(pipe.transform({ name: 5 }, { type: 'body', metatype: QuickNameDto })).rejects.toMatchObject({ extras: { errors: { name: ['name must be a string'] } } });
  });
});
