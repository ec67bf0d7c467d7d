import { ValidationFailedException } from '@app/errors';
import { fillHours, hourlyWindow } from './hourly-window';

const NOW = Date.parse('2026-11-25T20:31:07.123Z');

describe('hourlyWindow', () => {
  it('is the last 24 whole UTC hours by default, the current hour last', () => {
    const window = hourlyWindow(undefined, NOW);
    expect(window.window).toBe('24h');
    expect(window.since).toBe('2026-11-24T21:00:00Z');
    expect(window.hours).toHaveLength(24);
    expect(window.hours.at(-1)).toBe('2026-11-25T20:00:00Z');
  });

  it('is 168 hours for 7d', () => {
    const window = hourlyWindow('7d', NOW);
    expect(window).toMatchObject({ window: '7d', since: '2026-11-18T21:00:00Z' });
    expect(window.hours).toHaveLength(168);
  });

  it.each([['1h'], [''], [['24h']], ['toString'], [24]])('refuses %p with a 422 naming window', (value) => {
    expect(() => hourlyWindow(value, NOW)).toThrow(ValidationFailedException);
    try {
      hourlyWindow(value, NOW);
    } catch (error) {
      expect((error as ValidationFailedException).body()).toMatchObject({ errors: { window: ['The window field must be one of 24h, 7d.'] } });
    }
  });
});

describe('fillHours', () => {
  it('gives every hour a bucket, folding in the rows of its hour', () => {
    const window = hourlyWindow('24h', NOW);
    const rows = [
      { hour: '2026-11-25T20:00:00Z', n: 2 },
      { hour: '2026-11-25T20:00:00Z', n: 3 },
      { hour: '2026-11-25T18:00:00Z', n: 1 },
    ];
    const data = fillHours(
      window,
      rows,
      () => ({ total: 0 }),
      (bucket, row) => void (bucket.total += row.n),
    );
    expect(data).toHaveLength(24);
    expect(data.slice(-3)).toEqual([
      { hour: '2026-11-25T18:00:00Z', total: 1 },
      { hour: '2026-11-25T19:00:00Z', total: 0 },
      { hour: '2026-11-25T20:00:00Z', total: 5 },
    ]);
  });
});
