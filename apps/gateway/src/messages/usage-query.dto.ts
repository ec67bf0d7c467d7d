import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PhoneQuery } from '../common/phone-query.dto';
import { Rule } from '../common/rule.decorator';

/** Longest range GET api/Usage covers, in days (a year and a day). */
export const USAGE_MAX_DAYS = 366;
/** The range when `from` is left out: this many days up to `to`. */
export const USAGE_DEFAULT_DAYS = 30;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** 2000-01-01 and 9999-12-31: days PostgreSQL and JavaScript both hold. */
const FIRST_DAY = Date.UTC(2000, 0, 1);
// The day after the last one asked for must still be a four-digit year (it bounds the query).
const LAST_DAY = Date.UTC(9999, 11, 30);
const DATE_RULE = 'must be a date as YYYY-MM-DD (UTC), from 2000-01-01';

/** Epoch milliseconds of a calendar date (UTC midnight); NaN when it is not one (2025-02-30 included). */
export function dayOf(value: unknown): number {
  if (typeof value !== 'string' || !DATE.test(value)) return NaN;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(ms) && ms >= FIRST_DAY && ms <= LAST_DAY && new Date(ms).toISOString().startsWith(value) ? ms : NaN;
}

/** GET api/Usage: a range of days (UTC, both ends included) and `phone_id`. */
export class UsageQuery extends PhoneQuery {
  @ApiPropertyOptional({ description: `First day (UTC), YYYY-MM-DD; default ${USAGE_DEFAULT_DAYS - 1} days before \`to\``, example: '2026-11-01' })
  @IsOptional()
  @Rule('usageFrom', (v) => (Number.isNaN(dayOf(v)) ? DATE_RULE : null))
  from?: string;

  @ApiPropertyOptional({ description: `Last day (UTC), YYYY-MM-DD; default today. At most ${USAGE_MAX_DAYS} days from \`from\``, example: '2026-11-30' })
  @IsOptional()
  @Rule('usageTo', (v, dto) => {
    const to = dayOf(v);
    if (Number.isNaN(to)) return DATE_RULE;
    const from = dayOf(dto.from);
    if (Number.isNaN(from)) return null;
    if (to < from) return 'must not be before from';
    return (to - from) / DAY_MS + 1 > USAGE_MAX_DAYS ? `must be at most ${USAGE_MAX_DAYS} days from from` : null;
  })
  to?: string;
}

/** The days a validated UsageQuery covers, as epoch milliseconds of the first and of the day after the last. */
export function usageRange(query: UsageQuery, now = Date.now()): { first: number; end: number } {
  const to = query.to !== undefined ? dayOf(query.to) : Math.floor(now / DAY_MS) * DAY_MS;
  const first = query.from !== undefined ? dayOf(query.from) : to - (USAGE_DEFAULT_DAYS - 1) * DAY_MS;
  // `from` alone, far back: the range ends where the longest one does.
  const last = query.to === undefined && query.from !== undefined ? Math.min(to, first + (USAGE_MAX_DAYS - 1) * DAY_MS) : to;
  return { first, end: Math.max(first, last) + DAY_MS };
}
