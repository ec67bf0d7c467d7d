import type { Request, Response } from 'express';
import type { DocumentDto } from './document.dto';

/** The ETag of a document is its version. */
export function setDocumentEtag(res: Response, document: DocumentDto): DocumentDto {
  res.setHeader('ETag', `"${document.version}"`);
  return document;
}

/** The If-Match header as the OpenAPI document declares it on every write that honours it. */
export const IF_MATCH = { name: 'If-Match', required: false, description: 'Version the document must be at ("3"); otherwise 412.' };

/**
 * The version an If-Match header demands: undefined when absent or `*`, -1 when it
 * names no version (so it can never match and the write answers 412).
 */
export function expectedVersion(req: Request): number | undefined {
  const header = req.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  return match ? Number(match[1]) : -1;
}

/** True when If-None-Match already names this version (GET answers 304). */
export function notModified(req: Request, document: DocumentDto): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === `"${document.version}"` || tag.trim() === '*');
}
