import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { pageLocation, PUBLIC_BASE_URL_SETTING, type PageLocation } from '@app/pagination';
import type { Request } from 'express';
import { InvalidParameterException } from '../errors/network-error.exception';
import { CURSOR_RULE, DEFAULT_LIMIT, OFFSET, parseKeyCursor, type Paging } from './cursor-page.dto';

/** A list request: `limit` and `after` as the list's query DTO checked them, and the request's address for `paging.next`. */
export interface CursorPaging {
  limit: number;
  /** The decoded cursor; null for the first page. */
  after: string | null;
  location: PageLocation;
}

/** The network's list envelope (as the Graph API pages): the items, then where the next page starts (PageOf documents it). */
export interface CursorPage<T> {
  data: T[];
  paging: Paging;
}

/** The request's address, for the `paging.next` of its answer. */
export const PageAddress = createParamDecorator((_: unknown, ctx: ExecutionContext): PageLocation => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return pageLocation(req, req.app.get(PUBLIC_BASE_URL_SETTING));
});

/** The paging of a list request whose query DTO (KeysetPageQuery, OffsetPageQuery) has been validated. */
export function pagingOf(query: { limit?: string; after?: string }, location: PageLocation): CursorPaging {
  return {
    limit: query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit),
    after: query.after === undefined ? null : Buffer.from(query.after, 'base64url').toString('utf8'),
    location,
  };
}

/** The envelope for `rows`; `next` is the position after the last row, or null when this is the last page. */
export function cursorPage<T>(rows: T[], paging: CursorPaging, next: string | null): CursorPage<T> {
  if (next === null) return { data: rows, paging: { cursors: { after: null } } };
  const after = Buffer.from(next, 'utf8').toString('base64url');
  const query = new URLSearchParams(paging.location.query);
  query.set('after', after);
  return { data: rows, paging: { cursors: { after }, next: `${paging.location.path}?${query.toString()}` } };
}

/** The offset an OffsetPageQuery's cursor names. */
export function offsetOf(paging: CursorPaging): number {
  if (paging.after === null) return 0;
  const match = OFFSET.exec(paging.after);
  if (!match) throw new InvalidParameterException('after', CURSOR_RULE);
  return Number(match[1]);
}

export function offsetCursor(offset: number, rows: number, total: number): string | null {
  return offset + rows < total ? `o:${offset + rows}` : null;
}

/** The (timestamp, id) a KeysetPageQuery's cursor names. */
export function keyOf(paging: CursorPaging): { at: string; id: string } | null {
  if (paging.after === null) return null;
  const key = parseKeyCursor(Buffer.from(paging.after, 'utf8').toString('base64url'));
  if (!key) throw new InvalidParameterException('after', CURSOR_RULE);
  return key;
}

/** The keyset cursor after `rows` when the list fetched one row more than `limit` (there is a next page). */
export function keyCursor<T extends { id: string }>(rows: T[], limit: number, at: (row: T) => string): string | null {
  if (rows.length <= limit) return null;
  const last = rows[limit - 1];
  return `k:${at(last)}|${last.id}`;
}
