import { IsOptional, IsString } from 'class-validator';
import { ValidationFailedException } from './common.exception';
import { createValidationPipe } from './validation.pipe';

class NameDto {
  @IsOptional() @IsString()
  name?: string;
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
});
