import { AppException } from '@app/errors';
import type { SchemaViolation } from './json-schema.validator';

export enum SchemaErrorCode {
  NotFound = 'SCHEMA_NOT_FOUND',
  Invalid = 'SCHEMA_INVALID',
  DataInvalid = 'SCHEMA_VALIDATION_FAILED',
}

export class SchemaNotFoundException extends AppException {
  constructor() {
    super(SchemaErrorCode.NotFound, 404, 'Schema not found.');
  }
}

/** The schema given to POST DOC/schema is not a usable JSON Schema. */
export class InvalidSchemaException extends AppException {
  constructor(errors: SchemaViolation[]) {
    super(SchemaErrorCode.Invalid, 422, 'The schema is not a valid JSON Schema.', { errors });
  }
}

/** Document data fails the scope's schema: the spec's 422 body with errors as [{property, message}]. */
export class SchemaValidationException extends AppException {
  constructor(errors: SchemaViolation[]) {
    super(SchemaErrorCode.DataInvalid, 422, 'The data does not match the schema.', { errors });
  }
}
