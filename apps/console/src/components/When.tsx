import { when } from './Json';

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "3 min ago", "in 2 days": the largest whole unit, in the viewer's language; under 10 s "just now". */
export function relative(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  if (Math.abs(seconds) < 10) return 'just now';
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size || unit === 'second') return format.format(Math.trunc(seconds / size), unit);
  }
  return when(iso);
}

/** The exact time in the viewer's zone and in UTC, for the hover text. */
export function exact(iso: string): string {
  const d = new Date(iso);
  return `${d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })} (${d.toISOString().replace('T', ' ').slice(0, 19)} UTC)`;
}

/** A time as people say it ("3 min ago"), the exact local and UTC time on hover; "—" when there is none. */
export function When({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={exact(iso)}>
      {relative(iso)}
    </time>
  );
}
