import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import { UnsupportedContentEncodingException } from './sales.exception';

export type SalesContentEncoding = 'gzip' | 'deflate' | 'identity';

/** A Map, not an object literal: a Content-Encoding such as `constructor` must not find Object.prototype's members. */
const ENCODINGS = new Map<string, SalesContentEncoding>([
  ['gzip', 'gzip'],
  ['x-gzip', 'gzip'],
  ['deflate', 'deflate'],
  ['identity', 'identity'],
  ['', 'identity'],
]);

/**
 * The body's encoding from its Content-Encoding: gzip (or x-gzip), deflate (the zlib format, as HTTP
 * defines it) or none; anything else, or more than one (`gzip, gzip`), is a 415 before a byte is read.
 */
export function salesContentEncoding(header: string | string[] | undefined): SalesContentEncoding {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const encoding = ENCODINGS.get(text.trim().toLowerCase());
  if (!encoding) throw new UnsupportedContentEncodingException(text.trim());
  return encoding;
}

/** A streaming decompressor for the encoding (null for identity), whose output respects its reader's backpressure. */
export function salesDecompressor(encoding: SalesContentEncoding): Gunzip | Inflate | null {
  if (encoding === 'identity') return null;
  // A smaller output chunk than zlib's 16 KiB default would cost calls; a larger one, memory per paused stream.
  const options = { chunkSize: 64 * 1024 };
  return encoding === 'gzip' ? createGunzip(options) : createInflate(options);
}
