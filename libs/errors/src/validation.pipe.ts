import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ValidationFailedException, type FieldErrors } from './common.exception';

/** Flattens class-validator's tree into `{ "documents.0.key": ["..."] }`. */
export function toFieldErrors(errors: ValidationError[], prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  for (const error of errors) {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    if (error.constraints) out[path] = Object.values(error.constraints);
    Object.assign(out, toFieldErrors(error.children ?? [], path));
  }
  return out;
}

/** The validation pipe every app registers: unknown fields refused, failures rendered as 422. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    validateCustomDecorators: false,
    stopAtFirstError: false,
    exceptionFactory: (errors) => new ValidationFailedException(toFieldErrors(errors)),
  });
}
