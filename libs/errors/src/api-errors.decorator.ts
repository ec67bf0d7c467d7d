import { STATUS_CODES } from 'node:http';
import { RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ApiResponse, DECORATORS, type SchemaObject } from '@nestjs/swagger';

/** The name under which each app's OpenAPI document holds its error body (see configureApp). */
export const ERROR_BODY_SCHEMA_NAME = 'ErrorBody';

/** The shared error body every service renders unless its ErrorRenderer says otherwise. */
export const ERROR_BODY_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['message'],
  properties: {
    message: { type: 'string', example: 'The name field is required.' },
    error: { type: 'string', description: '401 and 403 only: Unauthorized or Forbidden.' },
    errors: {
      description: 'Field name → messages; a JSON Schema violation lists {property, message} instead.',
      oneOf: [
        { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        { type: 'array', items: { type: 'object', properties: { property: { type: 'string' }, message: { type: 'string' } } } },
      ],
    },
    retry_after: { type: 'integer', description: '429 and 503: seconds to wait, as in Retry-After.' },
  },
  additionalProperties: true,
};

/** What each client error means, whatever the service. */
const ERROR_ANSWERS = {
  400: 'The request is malformed (e.g. the body is not valid JSON).',
  401: 'The credentials are missing, unknown or expired.',
  403: 'The credentials do not allow this operation.',
  404: 'Nothing at this address for these credentials.',
  408: 'The body stopped arriving; nothing was kept.',
  409: 'The request conflicts with the current state.',
  412: 'If-Match does not match the current version.',
  413: 'The body is too large.',
  415: 'The Content-Type is not one this operation reads.',
  422: 'The request breaks a validation rule; the body names each field.',
  429: 'Too many requests; retry after Retry-After seconds.',
  503: 'The service is busy or a dependency is down; retry after Retry-After seconds.',
} as const;

export type ErrorStatus = keyof typeof ERROR_ANSWERS;

/**
 * Documents the error answers of an operation (or of every operation of a controller) with
 * the app's error body. One decorator for every service; the body's schema is the app's own.
 *
 * An operation with answers of its own loses the success answer Nest would document, so on
 * a controller this also documents, for each such operation, its success status (@HttpCode,
 * else 201 for POST and 200 for the rest). Class decorators run after the methods', so every
 * route is known by then.
 */
export function ApiErrors(...statuses: ErrorStatus[]): MethodDecorator & ClassDecorator {
  const answers = statuses.map((status) =>
    ApiResponse({ status, description: ERROR_ANSWERS[status], schema: { $ref: `#/components/schemas/${ERROR_BODY_SCHEMA_NAME}` } }),
  );
  return ((target: object, key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      for (const answer of answers) answer(target, key!, descriptor);
      return descriptor;
    }
    for (const answer of answers) (answer as ClassDecorator)(target as CallableFunction);
    documentSuccess((target as CallableFunction).prototype);
    return target;
  }) as MethodDecorator & ClassDecorator;
}

function documentSuccess(prototype: Record<string, unknown>): void {
  for (const key of Object.getOwnPropertyNames(prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
    const handler = descriptor?.value as CallableFunction | undefined;
    if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
    const own = (Reflect.getMetadata(DECORATORS.API_RESPONSE, handler) ?? {}) as Record<string, unknown>;
    if (Object.keys(own).length === 0 || Object.keys(own).some((status) => /^2/.test(status))) continue;
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod;
    const status = (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (method === RequestMethod.POST ? 201 : 200);
    ApiResponse({ status, description: STATUS_CODES[status] ?? '' })(prototype, key, descriptor!);
  }
}
