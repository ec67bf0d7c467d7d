import fc from 'fast-check';
import { dueInstant, isRealDate, isTimeZone, isWallTime, localInstant, quietUntil } from './push-due-time';

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

  it('reads each zone apart, and stays right once its offsets kept have been emptied', () => {
    // 9 am in Tokyo (no daylight saving) and in Berlin on 12,000 days: more offsets than the module keeps.
    const wrong: string[] = [];
    for (let day = 0; day < 12_000; day++) {
      const date = new Date(Date.UTC(2030, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
      const tokyo = dueInstant(date, '09:00:00', 'Asia/Tokyo').toISOString();
      if (tokyo !== `${date}T00:00:00.000Z`) wrong.push(`Tokyo ${date}: ${tokyo}`);
      const berlin = dueInstant(date, '09:00:00', 'Europe/Berlin').getTime() - Date.parse(`${date}T09:00:00Z`);
      if (berlin !== -3_600_000 && berlin !== -7_200_000) wrong.push(`Berlin ${date}: ${berlin}`);
    }
    expect(wrong).toEqual([]);
    expect(isTimeZone('asia/tokyo')).toBe(true);
    expect(dueInstant('2026-03-10', '09:00:00', 'asia/tokyo').toISOString()).toBe('2026-03-10T00:00:00.000Z');
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

  it('local delivery: the next time the zone shows the wall time, today or tomorrow', () => {
    const now = Date.parse('2026-03-10T10:00:00Z'); // 07:00 in São Paulo, 19:00 in Tokyo
    expect(localInstant('09:00:00', 'America/Sao_Paulo', now, null).toISOString()).toBe('2026-03-10T12:00:00.000Z');
    expect(localInstant('09:00:00', 'Asia/Tokyo', now, null).toISOString()).toBe('2026-03-11T00:00:00.000Z');
    expect(localInstant('09:00:00', 'Asia/Tokyo', now, '2026-03-10').toISOString()).toBe('2026-03-10T00:00:00.000Z');
    // A spring-forward night: 02:30 does not exist in New York on 2026-03-08, so it moves to 03:30 (EDT).
    expect(localInstant('02:30:00', 'America/New_York', Date.parse('2026-03-08T05:00:00Z'), null).toISOString()).toBe('2026-03-08T07:30:00.000Z');
  });

  it('quiet hours: inside (spanning midnight or not) gives their end in the zone; outside gives null', () => {
    const night = { start: '22:00', end: '08:00' };
    expect(quietUntil(Date.parse('2026-03-11T02:00:00Z'), 'America/Sao_Paulo', night)?.toISOString()).toBe('2026-03-11T11:00:00.000Z'); // 23:00 local
    expect(quietUntil(Date.parse('2026-03-11T09:00:00Z'), 'America/Sao_Paulo', night)?.toISOString()).toBe('2026-03-11T11:00:00.000Z'); // 06:00 local
    expect(quietUntil(Date.parse('2026-03-11T11:00:00Z'), 'America/Sao_Paulo', night)).toBeNull(); // 08:00 local: over
    expect(quietUntil(Date.parse('2026-03-11T00:59:00Z'), 'America/Sao_Paulo', night)).toBeNull(); // 21:59 local
    const lunch = { start: '12:00', end: '13:30' };
    expect(quietUntil(Date.parse('2026-03-11T12:15:00Z'), 'UTC', lunch)?.toISOString()).toBe('2026-03-11T13:30:00.000Z');
    expect(quietUntil(Date.parse('2026-03-11T13:30:00Z'), 'UTC', lunch)).toBeNull();
  });

  it('quiet hours hold every instant inside them to an end that is outside them (property)', () => {
    const hhmm = fc
      .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
      .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
    const zone = fc.constantFrom('UTC', 'America/Sao_Paulo', 'Asia/Kolkata', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe');
    fc.assert(
      fc.property(fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }), zone, hhmm, hhmm, (at, z, start, end) => {
        fc.pre(start !== end);
        const until = quietUntil(at, z, { start, end });
        if (until === null) return;
        expect(until.getTime()).toBeGreaterThan(at);
        expect(until.getTime() - at).toBeLessThanOrEqual(25 * 3_600_000);
        expect(quietUntil(until.getTime(), z, { start, end })).toBeNull();
      }),
    );
  });
});
