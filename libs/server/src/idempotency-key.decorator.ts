import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { AppException } from '@app/errors';
import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';

/** The header a client retries a write with; HTTP headers are case-insensitive, Node gives them lower-case. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Keys as Stripe takes them: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
const VISIBLE_ASCII = '[\\x21-\\x7e]';
const KEY = new RegExp(`^${VISIBLE_ASCII}{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

/** 400: the header is there but is no key (a malformed header is a bad request, whatever the body). */
export class InvalidIdempotencyKeyException extends AppException {
  constructor() {
    const message = `The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`;
    super('INVALID_IDEMPOTENCY_KEY', 400, message, { errors: { [IDEMPOTENCY_KEY_HEADER]: [message] } });
  }
}

const DOCUMENT_HEADER = ApiHeader({
  name: IDEMPOTENCY_KEY_HEADER,
  required: false,
  description: 'A repeated request with the same key gets the first answer, and the work is done once.',
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: `^${VISIBLE_ASCII}+$` },
});

/** The `Idempotency-Key` of these headers, if any; throws InvalidIdempotencyKeyException when it breaks the key rule. */
export function idempotencyKeyOf(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value !== undefined && !KEY.test(value)) throw new InvalidIdempotencyKeyException();
  return value;
}

/**
 * The request's `Idempotency-Key`, if any, checked against the one key rule before the
 * handler runs. Declares the header once, as optional, in the OpenAPI document (Nest's
 * `@Headers(name)` would declare a second, required copy of it).
 */
export const IdempotencyKey = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string | undefined => idempotencyKeyOf(ctx.switchToHttp().getRequest<Request>().headers),
  [
    (target, key) => {
      const descriptor = key === undefined ? undefined : Object.getOwnPropertyDescriptor(target, key);
      if (key !== undefined && descriptor) DOCUMENT_HEADER(target, key, descriptor);
    },
  ],
);
