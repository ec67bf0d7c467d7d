import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { Rule } from './rule.decorator';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;
const LIMIT = /^[1-9]\d{0,2}$/;
export const LIMIT_RULE = `must be an integer from 1 to ${MAX_LIMIT}`;
export const CURSOR_RULE = 'must be the cursor of a previous page';
const AFTER = "The previous page's paging.cursors.after";

const ENCODED = /^[A-Za-z0-9_-]{1,200}$/;
const KEY = /^k:(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z\|([\x21-\x7e]{1,255})$/;
export const OFFSET = /^o:(\d{1,9})$/;

function decode(value: unknown): string | null {
  return typeof value === 'string' && ENCODED.test(value) ? Buffer.from(value, 'base64url').toString('utf8') : null;
}

/**
 * True when the fields name an instant PostgreSQL stores: a cursor is input, and a day
 * that does not exist (2024-02-30) or year 0 would otherwise fail in the query.
 */
function realInstant(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= days && hour <= 23 && minute <= 59 && second <= 59;
}

/** The (timestamp, id) a keyset cursor names, or null when `value` is not one. */
export function parseKeyCursor(value: unknown): { at: string; id: string } | null {
  const text = decode(value);
  const match = text === null ? null : KEY.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  return realInstant(year, month, day, hour, minute, second) ? { at: match[0].slice(2, 29), id: match[7] } : null;
}

export const isKeyCursor = (value: unknown): boolean => parseKeyCursor(value) !== null;
export const isOffsetCursor = (value: unknown): boolean => OFFSET.test(decode(value) ?? '');

/** `limit`: 1-100 rows, 25 when absent. */
export class LimitQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT })
  @IsOptional()
  @Rule('limit', (v) => (typeof v === 'string' && LIMIT.test(v) && Number(v) <= MAX_LIMIT ? null : LIMIT_RULE))
  limit?: string;
}

/** A newest-first list paged by the (time, id) of its last row. */
export class KeysetPageQuery extends LimitQuery {
  @ApiPropertyOptional({ description: AFTER })
  @IsOptional()
  @Rule('keyCursor', (v) => (isKeyCursor(v) ? null : CURSOR_RULE))
  after?: string;
}

/** A list paged by position (the webhook engine's logs). */
export class OffsetPageQuery extends LimitQuery {
  @ApiPropertyOptional({ description: AFTER })
  @IsOptional()
  @Rule('offsetCursor', (v) => (isOffsetCursor(v) ? null : CURSOR_RULE))
  after?: string;
}

class PageCursors {
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `after` for the next page; null on the last page.' })
  after!: string | null;
}

/** The network's paging: the cursor after this page, and the next page's address when there is one. */
export class Paging {
  @ApiProperty({ type: PageCursors })
  cursors!: PageCursors;

  @ApiPropertyOptional({
    description: 'The next page (absent on the last page).',
    example: '/api/Messages?limit=25&after=azoyMDI2LTExLTI3VDEwOjAwOjAwLjAwMDAwMFp8d2FtaWQuMQ',
  })
  next?: string;
}

/** A list answer `{data, paging}` of `item`, named `name` in the OpenAPI document. */
export function PageOf<T>(item: Type<T>, name: string): Type<{ data: T[]; paging: Paging }> {
  class Page {
    @ApiProperty({ type: [item] })
    data!: T[];

    @ApiProperty({ type: Paging })
    paging!: Paging;
  }
  Object.defineProperty(Page, 'name', { value: name });
  return Page;
}

/** `{success: true}`. */
export class SuccessAnswer {
  @ApiProperty({ enum: [true], example: true })
  success!: true;
}
