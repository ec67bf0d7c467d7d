/** How far ahead a push may be scheduled (ten years): later dates are refused per item. */
export const SCHEDULE_HORIZON_DAYS = 3653;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})$/;

/** A calendar date that exists (`2026-02-30` does not), years 1970 to 9999. */
export function isRealDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1970 || mo < 1 || mo > 12 || d < 1) return false;
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** `HH:MM:SS`, 00:00:00 to 23:59:59. */
export function isWallTime(value: string): boolean {
  const m = TIME.exec(value);
  return m !== null && Number(m[1]) < 24 && Number(m[2]) < 60 && Number(m[3]) < 60;
}

/**
 * Each zone's formatter, made once per spelling the runtime accepted (names are case-insensitive, so spellings are
 * not a closed list): emptied when it reaches ZONES_KEPT, past the 600-odd IANA names.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const ZONES_KEPT = 1000;

/** True when `name` is an IANA time zone this runtime knows (`UTC`, `America/Sao_Paulo`). */
export function isTimeZone(name: string): boolean {
  if (formatters.has(name)) return true;
  try {
    formatter(name);
    return name.length > 0;
  } catch {
    return false;
  }
}

/**
 * Offsets already read, by zone and second: the items of a batch share a few due times, and each formatToParts
 * costs microseconds. Emptied when it reaches OFFSETS_KEPT entries.
 */
const offsets = new Map<string, number>();
const OFFSETS_KEPT = 10_000;

/** How far the zone's wall clock is ahead of UTC at `instant`, in milliseconds. */
function offsetAt(zone: string, instant: number): number {
  const second = Math.floor(instant / 1000) * 1000;
  const key = `${zone} ${second}`;
  const known = offsets.get(key);
  if (known !== undefined) return known;
  const parts: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const offset = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) - second;
  if (offsets.size >= OFFSETS_KEPT) offsets.clear();
  offsets.set(key, offset);
  return offset;
}

/** The zone's wall-clock formatter (throws RangeError for a name the runtime does not know). */
function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    if (formatters.size >= ZONES_KEPT) formatters.clear();
    formatters.set(zone, format);
  }
  return format;
}

/**
 * The instant at which the wall clock of `zone` shows `date` `time` (both already valid).
 * A time skipped by a daylight-saving jump is read with the offset before the jump (02:30 on
 * a spring-forward night becomes 03:30); a repeated time is its first occurrence.
 */
export function dueInstant(date: string, time: string, zone: string): Date {
  const [y, mo, d] = date.split('-').map(Number);
  const [h, mi, s] = time.split(':').map(Number);
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  // The offsets in force half a day either side cover any transition near this wall time.
  const before = offsetAt(zone, wall - 43_200_000);
  const after = offsetAt(zone, wall + 43_200_000);
  const valid = [wall - before, wall - after].filter((t) => offsetAt(zone, t) === wall - t);
  return new Date(valid.length > 0 ? Math.min(...valid) : wall - before);
}

/** The calendar date (`YYYY-MM-DD`) and wall time (`HH:MM:SS`) the clock of `zone` shows at `instant`. */
export function wallClock(zone: string, instant: number): { date: string; time: string } {
  const iso = new Date(Math.floor(instant / 1000) * 1000 + offsetAt(zone, instant)).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 19) };
}

/** The calendar day after `date` (`YYYY-MM-DD`). */
function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * Local-time delivery: the instant `zone`'s clock shows `time`, on `date` when given, else the next
 * time it does from `now` on (today in that zone, or tomorrow when today's has passed).
 */
export function localInstant(time: string, zone: string, now: number, date: string | null): Date {
  if (date !== null) return dueInstant(date, time, zone);
  const today = wallClock(zone, now).date;
  const due = dueInstant(today, time, zone);
  return due.getTime() >= now - 999 ? due : dueInstant(nextDay(today), time, zone);
}

/** Quiet hours: `HH:MM` to `HH:MM` on the wall clock of each item's zone; start after end spans midnight. */
export interface QuietHours {
  start: string;
  end: string;
}

/** When `instant` falls inside `quiet` in `zone`, the instant those quiet hours end; otherwise null. */
export function quietUntil(instant: number, zone: string, quiet: QuietHours): Date | null {
  const { date, time } = wallClock(zone, instant);
  const at = time.slice(0, 5);
  if (quiet.start === quiet.end) return null;
  const wraps = quiet.start > quiet.end;
  const inside = wraps ? at >= quiet.start || at < quiet.end : at >= quiet.start && at < quiet.end;
  if (!inside) return null;
  const endDate = wraps && at >= quiet.start ? nextDay(date) : date;
  return dueInstant(endDate, `${quiet.end}:00`, zone);
}
