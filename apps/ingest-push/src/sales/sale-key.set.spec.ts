import fc from 'fast-check';
import { SaleKeySet } from './sale-key.set';

describe('SaleKeySet', () => {
  it('tells every new key from a repeat across its growing tables (200,000 keys, each added twice)', () => {
    const keys = new SaleKeySet();
    const n = 200_000;
    let maybe = 0;
    for (let i = 0; i < n; i++) if (keys.add(`ORD-${i >> 2}`, `P-${i & 3}`)) maybe++;
    // A new key is taken for a repeat a few times in a billion: none of these.
    expect(maybe).toBe(0);
    expect(keys.count).toBe(n);
    for (let i = 0; i < n; i += 7) expect(keys.add(`ORD-${i >> 2}`, `P-${i & 3}`)).toBe(true);
    expect(keys.count).toBe(n);
  });

  it('keys are the pair: moving characters between OrderId and ProductId makes another key', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string({ minLength: 1 }), (a, b, moved) => {
        const keys = new SaleKeySet();
        expect(keys.add(a + moved, b)).toBe(false);
        expect(keys.add(a, moved + b)).toBe(false);
        expect(keys.add(a + moved, b)).toBe(true);
      }),
    );
  });

  it('answers "maybe" for every key once all its tables are full', () => {
    const keys = new SaleKeySet(1 << 18);
    let i = 0;
    while (!keys.add(`O${i}`, '')) i++;
    // Half of each table's slots: 2^15 + 2^16 + 2^17.
    expect(keys.count).toBe((1 << 18) - (1 << 15));
    expect(keys.add('never seen', 'before')).toBe(true);
  });
});
