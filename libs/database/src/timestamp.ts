import { ValidationFailedException } from '@app/errors/exceptions';

/** Date-times PostgreSQL reads exactly as written (microseconds kept). */
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/;
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An input timestamp made safe for a timestamptz column: an RFC 3339 date-time passes
 * unchanged; other ISO 8601 forms PostgreSQL cannot read (2030-01, week dates, comma
 * fractions) go through Date. Anything unreadable or outside 1970–9999 is a 422 on `field`.
 */
export function storableTimestamp(value: string, field: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms) || ms < 0 || ms > LATEST) {
    throw ValidationFailedException.of(field, `The ${field.split('.').pop()} field must be a date-time between 1970 and 9999, such as 2030-01-31T12:00:00Z.`);
  }
  return RFC3339.test(value) ? value : new Date(ms).toISOString();
}
