import type { Request } from 'express';
import { AppException, CommonErrorCode } from '@app/errors';

/** The request's exact bytes (a `@StreamBody` route), up to `limit`; 413 beyond. */
export async function readRawBody(req: Request, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new AppException(CommonErrorCode.PayloadTooLarge, 413, 'The request body is too large.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
