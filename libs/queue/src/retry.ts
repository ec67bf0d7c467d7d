import { IsString, Matches } from 'class-validator';

/** Checks a retry-schedule setting: seconds separated by commas, e.g. "5,300,1800". */
export function IsRetrySchedule(): PropertyDecorator {
  return (target, property) => {
    IsString()(target, property);
    Matches(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, { message: 'must be seconds separated by commas' })(target, property);
  };
}

/** Seconds between attempts, from "5,300,1800". */
export function parseRetrySchedule(value: string): number[] {
  return value.split(',').map((s) => Number(s.trim()));
}

/**
 * Milliseconds until the next attempt after `attempt` (1-based) failed, or null when the
 * schedule is used up. Jitter of ±10 % spreads retries of many deliveries that failed
 * together; a receiver's Retry-After is honoured when it asks for longer.
 */
export function nextRetryDelay(schedule: readonly number[], attempt: number, retryAfterSeconds: number | null, random = Math.random): number | null {
  if (attempt > schedule.length) return null;
  const base = schedule[attempt - 1] * 1000;
  const jittered = base * (0.9 + 0.2 * random());
  return Math.round(Math.max(jittered, (retryAfterSeconds ?? 0) * 1000));
}

/** Retry-After as seconds (delta-seconds or an HTTP date), capped at one day; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  const seconds = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : (Date.parse(raw) - now) / 1000;
  if (!Number.isFinite(seconds)) return null;
  return Math.min(Math.max(0, seconds), 86_400);
}
