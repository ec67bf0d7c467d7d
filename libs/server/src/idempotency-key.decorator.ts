import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';

/** The header a client retries a write with; HTTP headers are case-insensitive, Node gives them lower-case. */
const HEADER = 'Idempotency-Key';

const DOCUMENT_HEADER = ApiHeader({ name: HEADER, required: false, description: 'A repeated request with the same key gets the first answer, and the work is done once.' });

/**
 * The request's `Idempotency-Key`, if any. Declares the header once, as optional, in the
 * OpenAPI document (Nest's `@Headers(name)` would declare a second, required copy of it).
 */
export const IdempotencyKey = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string | undefined => {
    const value = ctx.switchToHttp().getRequest<Request>().headers[HEADER.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value;
  },
  [
    (target, key) => {
      const descriptor = key === undefined ? undefined : Object.getOwnPropertyDescriptor(target, key);
      if (key !== undefined && descriptor) DOCUMENT_HEADER(target, key, descriptor);
    },
  ],
);
