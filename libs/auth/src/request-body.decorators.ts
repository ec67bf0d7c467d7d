import { SetMetadata } from '@nestjs/common';

export const STREAM_BODY = 'body:stream';

export interface StreamBodyOptions {
  /** Largest body accepted, in bytes, checked against Content-Length before the handler runs (unbounded when left out). */
  limit?: number;
}

/**
 * The route reads the request stream itself (large uploads, multipart through multer):
 * the body is not parsed as JSON, and only a declared Content-Length over `limit` is
 * refused. The stream is untouched until the handler reads it, after authentication.
 * A body sent chunked (no Content-Length) is the handler's to bound.
 */
export const StreamBody = (options: StreamBodyOptions = {}): MethodDecorator & ClassDecorator => SetMetadata(STREAM_BODY, options);
