import { nextRetryDelay, parseRetryAfter, parseRetrySchedule } from './retry';

describe('retry schedule and Retry-After', () => {
  const schedule = parseRetrySchedule('5, 300,1800');

  it('follows the schedule with ±10 % jitter, then stops', () => {
    expect(schedule).toEqual([5, 300, 1800]);
    expect(nextRetryDelay(schedule, 1, null, () => 0)).toBe(4500);
    expect(nextRetryDelay(schedule, 1, null, () => 1)).toBe(5500);
    expect(nextRetryDelay(schedule, 3, null, () => 0.5)).toBe(1_800_000);
    expect(nextRetryDelay(schedule, 4, null)).toBeNull();
  });

  it('waits at least as long as Retry-After asks', () => {
    expect(nextRetryDelay(schedule, 1, 60, () => 0.5)).toBe(60_000);
    expect(nextRetryDelay(schedule, 2, 60, () => 0.5)).toBe(300_000);
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('9999999', now)).toBe(86_400);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
