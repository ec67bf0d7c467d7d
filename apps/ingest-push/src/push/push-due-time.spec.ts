import fc from 'fast-check';
import { dueInstant, isRealDate, isTimeZone, isWallTime } from './push-due-time';

describe('push due time', () => {
  it.each(['2026-02-28', '2028-02-29', '2026-12-31', '1970-01-01', '9999-12-31'])('takes the real date %s', (d) => expect(isRealDate(d)).toBe(true));
  it.each(['2026-02-30', '2027-02-29', '2026-13-01', '2026-00-10', '2026-01-00', '26-01-01', '2026-1-1', '2026-01-01T00:00:00', '1969-12-31', ' 2026-01-01'])(
    'refuses the date %s',
    (d) => expect(isRealDate(d)).toBe(false),
  );
  it.each(['00:00:00', '23:59:59', '12:30:05'])('takes the time %s', (t) => expect(isWallTime(t)).toBe(true));
  it.each(['25:00:00', '24:00:00', '12:60:00', '12:00:60', '1:00:00', '12:00', '12:00:00.5', 'noon'])('refuses the time %s', (t) =>
    expect(isWallTime(t)).toBe(false),
  );

  it('knows IANA zones and refuses made-up ones', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('America/Sao_Paulo')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  it('reads the wall time in the zone', () => {
    expect(dueInstant('2026-03-10', '09:00:00', 'UTC').toISOString()).toBe('2026-03-10T09:00:00.000Z');
    expect(dueInstant('2026-03-10', '09:00:00', 'America/Sao_Paulo').toISOString()).toBe('2026-03-10T12:00:00.000Z');
    expect(dueInstant('2026-07-01', '09:00:00', 'Europe/Berlin').toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(dueInstant('2026-01-01', '09:00:00', 'Europe/Berlin').toISOString()).toBe('2026-01-01T08:00:00.000Z');
    expect(dueInstant('2026-01-01', '00:00:00', 'Asia/Kolkata').toISOString()).toBe('2025-12-31T18:30:00.000Z');
  });

  it('moves a time skipped by daylight saving forward and takes the first of a repeated one', () => {
    // New York, 2026-03-08 02:00 jumps to 03:00; 2026-11-01 02:00 goes back to 01:00.
    expect(dueInstant('2026-03-08', '02:30:00', 'America/New_York').toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(dueInstant('2026-11-01', '01:30:00', 'America/New_York').toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('shows the same wall time again in the zone for any valid date and time', () => {
    const zones = ['UTC', 'America/Sao_Paulo', 'Europe/Berlin', 'Asia/Tokyo', 'Australia/Lord_Howe', 'America/New_York'];
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2090-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.constantFrom(...zones),
        (instant, zone) => {
          const wall = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium' }).format(instant);
          const [date, time] = wall.split(' ');
          const due = dueInstant(date, time, zone);
          expect(new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium' }).format(due)).toBe(wall);
          expect(due.getTime()).toBeLessThanOrEqual(Math.floor(instant.getTime() / 1000) * 1000);
        },
      ),
    );
  });
});
