import { SetMetadata, type Type } from '@nestjs/common';

export const STREAM_BODY = 'body:stream';

export interface StreamBodyOptions {
  /** Largest body accepted, in bytes, checked against Content-Length before the handler runs (unbounded when left out). */
  limit?: number;
  /**
   * The gate reads the body's exact bytes into `req.body` (a Buffer), within `limit` and the
   * body deadline, as it reads JSON: for routes that verify a signature over the raw body.
   */
  raw?: boolean;
}

/**
 * The route reads the request stream itself (large uploads, multipart through multer):
 * the body is not parsed as JSON, and only a declared Content-Length over `limit` is
 * refused. The stream is untouched until the handler reads it, after authentication.
 * A body sent chunked (no Content-Length) is the handler's to bound.
 */
export const StreamBody = (options: StreamBodyOptions = {}): MethodDecorator & ClassDecorator => SetMetadata(STREAM_BODY, options);

export const TOO_LARGE_HINT = 'body:tooLargeHint';

/** Reads the sentence a JSON route adds to its 413 from one of the app's providers (e.g. its config). */
export interface TooLargeHint<T = unknown> {
  from: Type<T>;
  hint: (provider: T) => string;
}

/**
 * A sentence added to the route's 413, whichever limit was hit (bytes, values), so a
 * client that sends too much learns every limit at once: e.g. the item count of a batch
 * route, which a byte limit would otherwise hide.
 */
export const TooLargeHint = <T>(from: Type<T>, hint: (provider: T) => string): MethodDecorator =>
  SetMetadata(TOO_LARGE_HINT, { from, hint } satisfies TooLargeHint<T>);
