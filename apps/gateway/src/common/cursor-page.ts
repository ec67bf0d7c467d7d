import { applyDecorators, createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiQuery } from '@nestjs/swagger';
import { pageLocation, PUBLIC_BASE_URL_SETTING, type PageLocation } from '@app/pagination';
import type { Request } from 'express';
import { InvalidParameterException } from '../errors/network-error.exception';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

/** A list request: `limit` (1-100, default 25) and `after`, the cursor a previous page gave. */
export interface CursorPaging {
  limit: number;
  /** The decoded cursor, checked by the list it belongs to; null for the first page. */
  after: string | null;
  location: PageLocation;
}

/** The network's list envelope (as the Graph API pages): the items, then where the next page starts. */
export interface CursorPage<T> {
  data: T[];
  paging: { cursors: { after: string | null }; next?: string };
}

const LIMIT = /^[1-9]\d{0,2}$/;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

/** The request's `limit` and `after` (400 naming the parameter when malformed), and its address for `paging.next`. */
export const CursorPageRequest = createParamDecorator((_: unknown, ctx: ExecutionContext): CursorPaging => {
  const req = ctx.switchToHttp().getRequest<Request>();
  const { limit, after } = req.query as Record<string, string | undefined>;
  if (limit !== undefined && (!LIMIT.test(limit) || Number(limit) > MAX_LIMIT)) throw new InvalidParameterException('limit', `must be an integer from 1 to ${MAX_LIMIT}`);
  if (after !== undefined && !CURSOR.test(after)) throw new InvalidParameterException('after', 'must be the cursor of a previous page');
  return {
    limit: limit === undefined ? DEFAULT_LIMIT : Number(limit),
    after: after === undefined ? null : Buffer.from(after, 'base64url').toString('utf8'),
    location: pageLocation(req, req.app.get(PUBLIC_BASE_URL_SETTING)),
  };
});

/** Documents a list's `limit` and `after` (answers are `{data, paging: {cursors: {after}, next}}`). */
export function ApiCursorPage(): MethodDecorator {
  return applyDecorators(
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT } }),
    ApiQuery({ name: 'after', required: false, description: "The previous page's paging.cursors.after" }),
  );
}

/** The envelope for `rows`; `next` is the position after the last row, or null when this is the last page. */
export function cursorPage<T>(rows: T[], paging: CursorPaging, next: string | null): CursorPage<T> {
  if (next === null) return { data: rows, paging: { cursors: { after: null } } };
  const after = Buffer.from(next, 'utf8').toString('base64url');
  const query = new URLSearchParams(paging.location.query);
  query.set('after', after);
  return { data: rows, paging: { cursors: { after }, next: `${paging.location.path}?${query.toString()}` } };
}

/** An offset cursor, for lists paged by position (the webhook engine's logs). */
export function offsetOf(paging: CursorPaging): number {
  if (paging.after === null) return 0;
  const match = /^o:(\d{1,9})$/.exec(paging.after);
  if (!match) throw new InvalidParameterException('after', 'must be the cursor of a previous page');
  return Number(match[1]);
}

export function offsetCursor(offset: number, rows: number, total: number): string | null {
  return offset + rows < total ? `o:${offset + rows}` : null;
}

/** A keyset cursor: the (timestamp, id) of the last row of newest-first lists. */
export function keyOf(paging: CursorPaging): { at: string; id: string } | null {
  if (paging.after === null) return null;
  const match = /^k:(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([\x21-\x7e]{1,255})$/.exec(paging.after);
  if (!match || Number.isNaN(Date.parse(match[1]))) throw new InvalidParameterException('after', 'must be the cursor of a previous page');
  return { at: match[1], id: match[2] };
}

/** The keyset cursor after `rows` when the list fetched one row more than `limit` (there is a next page). */
export function keyCursor<T extends { id: string }>(rows: T[], limit: number, at: (row: T) => string): string | null {
  if (rows.length <= limit) return null;
  const last = rows[limit - 1];
  return `k:${at(last)}|${last.id}`;
}
