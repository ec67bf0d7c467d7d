import { ValidationFailedException } from '@app/errors';
import { IsIn } from 'class-validator';

/** The windows an hourly statistics endpoint answers for, in hours. */
export const HOURLY_WINDOWS = { '24h': 24, '7d': 168 } as const;
export type HourlyWindowName = keyof typeof HOURLY_WINDOWS;
export const HOURLY_WINDOW_NAMES = Object.keys(HOURLY_WINDOWS) as HourlyWindowName[];
/** The refusal of any other `window` (a repeated one, an empty one), from the check and the decorator alike. */
export const HOURLY_WINDOW_MESSAGE = `The window field must be one of ${HOURLY_WINDOW_NAMES.join(', ')}.`;

/** A query DTO's `window`: one of HOURLY_WINDOWS (add `@IsOptional()` for the 24h default). */
export const IsHourlyWindow = (): PropertyDecorator => IsIn(HOURLY_WINDOW_NAMES, { message: HOURLY_WINDOW_MESSAGE });

const HOUR_MS = 3_600_000;

/** SQL for the UTC hour of a timestamp column, as the `hour` of a bucket: `2026-11-25T20:00:00Z`. */
export const hourOf = (column: string): string => `to_char(date_trunc('hour', ${column} AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:00:00"Z"')`;

/** The last 24 hours or 7 days, in whole UTC hours, the current hour last. */
export interface HourlyWindow {
  window: HourlyWindowName;
  /** The first hour's start: `2026-11-24T21:00:00Z`. */
  since: string;
  /** Every hour of the window, oldest first, in the `hourOf` form. */
  hours: string[];
}

/** Reads `window` (24h, the default, or 7d); anything else is a 422 naming the field. */
export function hourlyWindow(value: unknown, now = Date.now()): HourlyWindow {
  if (value !== undefined && (typeof value !== 'string' || !Object.prototype.hasOwnProperty.call(HOURLY_WINDOWS, value))) {
    throw ValidationFailedException.of('window', HOURLY_WINDOW_MESSAGE);
  }
  const window = (value ?? '24h') as HourlyWindowName;
  const count = HOURLY_WINDOWS[window];
  const first = Math.floor(now / HOUR_MS) * HOUR_MS - (count - 1) * HOUR_MS;
  const hours = Array.from({ length: count }, (_, i) => new Date(first + i * HOUR_MS).toISOString().replace('.000Z', 'Z'));
  return { window, since: hours[0], hours };
}

/** One bucket per hour of the window: the rows found for it (by `hour`) folded into `empty()`, or `empty()` alone. */
export function fillHours<R extends { hour: string }, B>(
  window: HourlyWindow,
  rows: R[],
  empty: () => B,
  add: (bucket: B, row: R) => void,
): Array<{ hour: string } & B> {
  const found = new Map<string, B>();
  for (const row of rows) {
    const bucket = found.get(row.hour) ?? empty();
    add(bucket, row);
    found.set(row.hour, bucket);
  }
  return window.hours.map((hour) => ({ hour, ...(found.get(hour) ?? empty()) }));
}
