import { text } from 'node:stream/consumers';
import { FIELDS, INVALID, parseSize, salesFile, type SalesFileOptions } from './sales-file';

const make = (options: SalesFileOptions) => text(salesFile(options));

describe('salesFile', () => {
  it('writes a CSV file: the header, then one line per Sale with every field', async () => {
    const made = { rows: 0 };
    const csv = await make({ format: 'csv', rows: 3, made });
    expect(csv.startsWith(`${FIELDS.join(';')}\n`)).toBe(true);
    expect(csv.endsWith('\n')).toBe(true);
    expect(made.rows).toBe(3);
    expect(csv).toContain('ORD-1;');
    expect(csv).toContain('P-3;');
  });

  it('writes a JSON array of Sales with numbers as numbers and empty fields left out', async () => {
    const sales = JSON.parse(await make({ format: 'json', rows: 40 })) as Array<Record<string, unknown>>;
    expect(sales).toHaveLength(40);
    expect(sales[0]).toMatchObject({ OrderId: 'ORD-1', ProductId: 'P-1', ProductPrice: expect.any(Number), ProductQuantity: expect.any(Number) });
    expect(sales.every((sale) => Object.values(sale).every((v) => v !== ''))).toBe(true);
  });

  it('makes the same bytes for the same seed, and other bytes for another', async () => {
    const a = await make({ format: 'csv', rows: 50, seed: 7 });
    expect(await make({ format: 'csv', rows: 50, seed: 7 })).toBe(a);
    expect(await make({ format: 'csv', rows: 50, seed: 8 })).not.toBe(a);
  });

  it('never passes a size ceiling, and stops just under it', async () => {
    for (const format of ['csv', 'json'] as const) {
      const made = { rows: 0 };
      const file = await make({ format, bytes: 100_000, made });
      const size = Buffer.byteLength(file);
      expect(size).toBeLessThanOrEqual(100_000);
      expect(size).toBeGreaterThan(99_000);
      if (format === 'json') expect(JSON.parse(file)).toHaveLength(made.rows);
    }
  });

  it('spoils every K-th row in one field, in the order of INVALID', async () => {
    const sales = JSON.parse(await make({ format: 'json', rows: 30, invalidEvery: 10 })) as Array<Record<string, unknown>>;
    expect(sales[9][INVALID[0].field]).toBe(Number(INVALID[0].value));
    expect(sales[19][INVALID[1].field]).toBe(INVALID[1].value);
    expect(sales[28][INVALID[2].field]).not.toBe('');
    // The CSV breaks its column count where JSON adds an unknown field.
    expect(await make({ format: 'csv', rows: 8, invalidEvery: 1 })).toMatch(/;x\n$/);
    expect(await make({ format: 'csv', rows: 7, invalidEvery: 1 })).not.toContain(';x\n');
  });

  it('ends CSV lines in CRLF when asked', async () => {
    expect(await make({ format: 'csv', rows: 2, crlf: true })).toMatch(/^[^\n]*\r\n/);
  });

  it('asks how big', () => {
    expect(() => salesFile({ format: 'csv' })).toThrow('Say how big: rows or bytes.');
  });
});

describe('parseSize', () => {
  it.each([
    ['1000000', 1_000_000],
    ['1GB', 1024 ** 3],
    ['512mb', 512 * 1024 ** 2],
    ['1.5 KB', 1536],
    ['10b', 10],
  ])('reads %s', (input, bytes) => expect(parseSize(input)).toBe(bytes));

  it('refuses what is not a size', () => {
    expect(() => parseSize('big')).toThrow('Not a size: big (e.g. 1GB, 200MB)');
    expect(() => parseSize('1TB')).toThrow('Not a size: 1TB');
  });
});
