import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { KeysetPageQuery } from '../common/cursor-page.dto';
import { PhoneQuery } from '../common/phone-query.dto';
import { oneOf, Rule } from '../common/rule.decorator';

const STATUS = /^[a-z_]{1,16}$/;
const RECIPIENT = /^\+?[0-9][0-9 ()-]{0,30}$/;
const UNIX_SECONDS = /^\d{1,11}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
/** 9999-12-31T23:59:59Z. */
const LAST_MS = 253_402_300_799_000;
/** E.164: 6 to 15 digits. */
export const RECIPIENT_DIGITS = { min: 6, max: 15 } as const;
const TIME_RULE = 'must be an ISO 8601 time (e.g. 2025-01-31T12:00:00Z) or Unix seconds';

/** The epoch milliseconds of `since`/`until` (ISO 8601 or Unix seconds), NaN when it is neither or out of range. */
function millis(value: unknown): number {
  if (typeof value !== 'string') return NaN;
  const ms = UNIX_SECONDS.test(value) ? Number(value) * 1000 : ISO_TIME.test(value) ? Date.parse(value.replace(' ', 'T')) : NaN;
  return Number.isFinite(ms) && ms >= 0 && ms <= LAST_MS ? ms : NaN;
}

function isRecipient(value: unknown): boolean {
  if (typeof value !== 'string' || !RECIPIENT.test(value)) return false;
  const digits = value.replace(/\D/g, '').length;
  return digits >= RECIPIENT_DIGITS.min && digits <= RECIPIENT_DIGITS.max;
}

/** GET api/Messages: filters by status, recipient and time range, a keyset page, and `phone_id`. */
export class MessageListQuery extends IntersectionType(KeysetPageQuery, PhoneQuery) {
  @ApiPropertyOptional({ description: 'e.g. accepted, sent, delivered, read, failed', pattern: STATUS.source })
  @IsOptional()
  @Rule('messageStatus', (v) => (typeof v === 'string' && STATUS.test(v) ? null : 'must be a message status, e.g. sent, delivered, read or failed'))
  status?: string;

  @ApiPropertyOptional({ description: 'The phone number the messages went to' })
  @IsOptional()
  @Rule('recipient', (v) => (isRecipient(v) ? null : 'must be a phone number with country code'))
  recipient?: string;

  @ApiPropertyOptional({ description: 'Sent at or after: ISO 8601 or Unix seconds' })
  @IsOptional()
  @Rule('since', (v) => (!Number.isNaN(millis(v)) ? null : TIME_RULE))
  since?: string;

  @ApiPropertyOptional({ description: 'Sent before: ISO 8601 or Unix seconds' })
  @IsOptional()
  @Rule('until', (v, dto) => (Number.isNaN(millis(v)) ? TIME_RULE : millis(dto.since) >= millis(v) ? 'must be later than since' : null))
  until?: string;
}

/** What the repository filters on: the recipient's digits, the times in ISO 8601. */
export interface MessageFilter {
  status?: string;
  recipient?: string;
  since?: string;
  until?: string;
}

/** The filter a validated MessageListQuery names. */
export function messageFilter(query: MessageListQuery): MessageFilter {
  const iso = (value: string) => new Date(millis(value)).toISOString();
  const filter: MessageFilter = {};
  if (query.status !== undefined) filter.status = query.status;
  if (query.recipient !== undefined) filter.recipient = query.recipient.replace(/\D/g, '');
  if (query.since !== undefined) filter.since = iso(query.since);
  if (query.until !== undefined) filter.until = iso(query.until);
  return filter;
}

export const STATS_WINDOWS = { '24h': 24, '7d': 168 } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;

/** GET api/Stats: `window` (24h by default, or 7d) and `phone_id`. */
export class StatsQuery extends PhoneQuery {
  @ApiPropertyOptional({ enum: Object.keys(STATS_WINDOWS), default: '24h' })
  @IsOptional()
  @Rule('statsWindow', (v) => oneOf(v, Object.keys(STATS_WINDOWS)))
  window?: StatsWindow;
}
