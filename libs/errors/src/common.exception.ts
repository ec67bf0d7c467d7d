import { AppException } from './app.exception';
import { UNSTORABLE_TEXT } from './storable-text';

/** Codes of the failures every service shares; contexts add their own. */
export enum CommonErrorCode {
  BadRequest = 'BAD_REQUEST',
  MalformedBody = 'MALFORMED_BODY',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  RequestTimeout = 'REQUEST_TIMEOUT',
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  ValidationFailed = 'VALIDATION_FAILED',
  InvalidPathParameter = 'INVALID_PATH_PARAMETER',
  Unauthenticated = 'UNAUTHENTICATED',
  Forbidden = 'FORBIDDEN',
  RouteNotFound = 'ROUTE_NOT_FOUND',
  MethodNotAllowed = 'METHOD_NOT_ALLOWED',
  RateLimited = 'RATE_LIMITED',
  Unavailable = 'UNAVAILABLE',
  Internal = 'INTERNAL',
}

/** Field name → messages, as in the spec's standard error body. */
export type FieldErrors = Record<string, string[]>;

export class InvalidRequestException extends AppException {
  constructor(message: string, code: string = CommonErrorCode.BadRequest) {
    super(code, 400, message);
  }
}

/** 400: a path parameter holds text PostgreSQL cannot store (the validation pipe checks every one before any handler). */
export class InvalidPathParameterException extends InvalidRequestException {
  constructor(readonly parameter: string) {
    super(`The path parameter ${parameter} ${UNSTORABLE_TEXT}.`, CommonErrorCode.InvalidPathParameter);
  }
}

export class ValidationFailedException extends AppException {
  constructor(errors: FieldErrors, message = summarize(errors)) {
    super(CommonErrorCode.ValidationFailed, 422, message, { errors });
  }

  /** One field, one message. */
  static of(field: string, message: string): ValidationFailedException {
    return new ValidationFailedException({ [field]: [message] });
  }
}

export class UnauthenticatedException extends AppException {
  constructor(message = 'Unauthenticated.') {
    super(CommonErrorCode.Unauthenticated, 401, message, { error: 'Unauthorized' });
  }
}

export class AccessDeniedException extends AppException {
  constructor(message: string) {
    super(CommonErrorCode.Forbidden, 403, message, { error: 'Forbidden' });
  }
}

export class TooManyRequestsException extends AppException {
  constructor(retryAfterSeconds: number) {
    const retryAfter = Math.max(1, Math.ceil(retryAfterSeconds));
    super(CommonErrorCode.RateLimited, 429, 'Too Many Attempts.', { retry_after: retryAfter }, { 'Retry-After': String(retryAfter) });
  }
}

/** Laravel's summary: the first message, plus how many more there are. */
function summarize(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  if (all.length === 0) return 'The given data was invalid.';
  const more = all.length - 1;
  return more === 0 ? all[0] : `${all[0]} (and ${more} more error${more === 1 ? '' : 's'})`;
}
