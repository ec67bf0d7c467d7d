import { BodyBudget, type BodyReservation } from './request-body.budget';

describe('BodyBudget', () => {
  const MB = 1_000_000;

  it('refuses a subject past its share and everyone past the process cap, and takes nothing then', () => {
    const budget = new BodyBudget({ processBytes: 10 * MB, subjectBytes: 6 * MB });
    const a = budget.reserve('a', 5 * MB) as BodyReservation;
    expect(budget.reserve('a', 2 * MB)).toBe('subject');
    const b = budget.reserve('b', 5 * MB) as BodyReservation;
    expect(budget.reserve('c', 1)).toBe('process');
    expect(budget.heldBytes).toBe(10 * MB);
    a.release();
    expect(typeof budget.reserve('c', 5 * MB)).toBe('object');
    b.release();
  });

  it('grows a chunked body as it arrives, within the caps', () => {
    const budget = new BodyBudget({ processBytes: 10 * MB, subjectBytes: 4 * MB });
    const chunked = budget.reserve('a', 0) as BodyReservation;
    expect(chunked.grow(3 * MB)).toBeNull();
    expect(chunked.grow(2 * MB)).toBe('subject');
    expect(budget.heldBytes).toBe(3 * MB);
    chunked.release();
    expect(budget.heldBytes).toBe(0);
  });

  it('gives everything back once, and forgets subjects that hold nothing', () => {
    const budget = new BodyBudget({ processBytes: 10 * MB, subjectBytes: 10 * MB });
    const all = Array.from({ length: 100 }, (_, i) => budget.reserve(`s${i}`, 100_000) as BodyReservation);
    expect(budget.subjects).toBe(100);
    for (const r of all) {
      r.release();
      r.release();
    }
    expect(budget.heldBytes).toBe(0);
    expect(budget.subjects).toBe(0);
    expect(all[0].grow(1)).toBe('process');
  });
});
