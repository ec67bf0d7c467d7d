import { planRollups } from './sale-rollups';

describe('planRollups', () => {
  it('reads clean months from their longest blocks, dirty months from day rows, dirty days from the lines', () => {
    const plan = planRollups(
      {
        lo: '2026-01-15',
        hi: '2026-04-10',
        dirty: ['2026-02-03', '2026-02-04', '2026-03-31'],
        dirtyMonths: ['2026-02-01', '2026-03-01'],
        blockMonths: ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01'],
      },
      true,
    );
    expect(plan).toEqual({
      // January from its 15th (day 14 counted from 0): 15–16, then 17–32 (ends with the 31st); April's first 9 days: 1–8, then 9.
      blocks: [
        ['d2', '2026-01-15'],
        ['d16', '2026-01-17'],
        ['d8', '2026-04-01'],
      ],
      days: [
        ['2026-02-01', '2026-04-01'],
        ['2026-04-09', '2026-04-10'],
      ],
      dirty: [
        ['2026-02-03', '2026-02-05'],
        ['2026-03-31', '2026-04-01'],
      ],
    });
  });

  it('reads a whole clean month as one block, and by day only day rows, across a year end', () => {
    expect(planRollups({ lo: '2025-12-01', hi: '2026-02-01', dirty: [], dirtyMonths: [], blockMonths: ['2025-12-01', '2026-01-01'] }, false)).toEqual({
      blocks: [],
      days: [['2025-12-01', '2026-02-01']],
      dirty: [],
    });
    expect(planRollups({ lo: '2025-12-01', hi: '2026-02-01', dirty: [], dirtyMonths: [], blockMonths: ['2025-12-01', '2026-01-01'] }, true).blocks).toEqual([
      ['month', '2025-12-01'],
      ['month', '2026-01-01'],
    ]);
  });

  it('reads a month without blocks (summed by a replica of the version before) from day rows', () => {
    expect(planRollups({ lo: '2025-12-01', hi: '2026-02-01', dirty: [], dirtyMonths: [], blockMonths: ['2026-01-01'] }, true)).toEqual({
      blocks: [['month', '2026-01-01']],
      days: [['2025-12-01', '2026-01-01']],
      dirty: [],
    });
  });

  it('covers every day of a span exactly once, in at most 11 pieces per month', () => {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const lengths: Record<string, number> = { month: 32, d16: 16, d8: 8, d4: 4, d2: 2 };
    for (let lo = Date.UTC(2026, 0, 1); lo < Date.UTC(2026, 2, 1); lo += 86_400_000) {
      for (let hi = lo + 86_400_000; hi <= Date.UTC(2026, 3, 15); hi += 3 * 86_400_000) {
        const plan = planRollups(
          { lo: day(lo), hi: day(hi), dirty: [], dirtyMonths: [], blockMonths: ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01'] },
          true,
        );
        const covered: string[] = [];
        for (const [period, first] of plan.blocks) {
          const start = Date.parse(first);
          const monthEnd = Date.UTC(new Date(start).getUTCFullYear(), new Date(start).getUTCMonth() + 1, 1);
          expect((new Date(start).getUTCDate() - 1) % lengths[period]).toBe(0);
          for (let d = start; d < Math.min(start + lengths[period] * 86_400_000, monthEnd); d += 86_400_000) covered.push(day(d));
        }
        for (const [a, b] of plan.days) for (let d = Date.parse(a); d < Date.parse(b); d += 86_400_000) covered.push(day(d));
        const expected: string[] = [];
        for (let d = lo; d < hi; d += 86_400_000) expected.push(day(d));
        expect(covered.sort()).toEqual(expected);
        expect(plan.blocks.length + plan.days.length).toBeLessThanOrEqual(11 * Math.ceil((hi - lo) / (28 * 86_400_000) + 1));
      }
    }
  });
});
