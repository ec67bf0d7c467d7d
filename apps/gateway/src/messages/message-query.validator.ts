import { InvalidParameterException } from '../errors/network-error.exception';

/** What GET api/Messages filters on; each absent when not asked for. */
export interface MessageFilter {
  status?: string;
  /** Digits only, as the network writes a recipient id. */
  recipient?: string;
  /** ISO 8601, inclusive. */
  since?: string;
  /** ISO 8601, exclusive. */
  until?: string;
}

export const STATS_WINDOWS = { '24h': 24, '7d': 168 } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;

const STATUS = /^[a-z_]{1,16}$/;
const RECIPIENT = /^\+?[0-9][0-9 ()-]{0,30}$/;
const UNIX_SECONDS = /^\d{1,11}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
/** 9999-12-31T23:59:59Z. */
const LAST_MS = 253_402_300_799_000;

/** GET api/Messages's filters: `status`, `recipient` and the time range `since`/`until` (ISO 8601, or Unix seconds as the network writes them). */
export function parseMessageFilter(query: Record<string, unknown>): MessageFilter {
  const filter: MessageFilter = {};
  const { status, recipient, since, until } = query as Record<string, string | undefined>;
  if (status !== undefined) {
    if (!STATUS.test(status)) throw new InvalidParameterException('status', 'must be a message status, e.g. sent, delivered, read or failed');
    filter.status = status;
  }
  if (recipient !== undefined) {
    const digits = recipient.replace(/\D/g, '');
    if (!RECIPIENT.test(recipient) || digits.length < 6 || digits.length > 15) throw new InvalidParameterException('recipient', 'must be a phone number with country code');
    filter.recipient = digits;
  }
  if (since !== undefined) filter.since = instant('since', since);
  if (until !== undefined) filter.until = instant('until', until);
  if (filter.since && filter.until && filter.since >= filter.until) throw new InvalidParameterException('until', 'must be later than since');
  return filter;
}

/** GET api/Stats's `window`: 24h (default) or 7d. */
export function parseStatsWindow(value: unknown): StatsWindow {
  if (value === undefined) return '24h';
  if (typeof value !== 'string' || !Object.prototype.hasOwnProperty.call(STATS_WINDOWS, value)) throw new InvalidParameterException('window', `must be one of ${Object.keys(STATS_WINDOWS).join(', ')}`);
  return value as StatsWindow;
}

function instant(field: string, value: string): string {
  const ms = UNIX_SECONDS.test(value) ? Number(value) * 1000 : ISO_TIME.test(value) ? Date.parse(value.replace(' ', 'T')) : NaN;
  if (!Number.isFinite(ms) || ms < 0 || ms > LAST_MS) throw new InvalidParameterException(field, 'must be an ISO 8601 time (e.g. 2025-01-31T12:00:00Z) or Unix seconds');
  return new Date(ms).toISOString();
}
