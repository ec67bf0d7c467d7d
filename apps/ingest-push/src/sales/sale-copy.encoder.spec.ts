import fc from 'fast-check';
import { saleCells, saleJson } from '../../test/support/sale-fixtures';
import { copyText, ERROR_SAMPLE_RECORDS, SaleCopyEncoder } from './sale-copy.encoder';
import { SALE_FIELDS } from './sale-fields';
import { dateTimeProblem, floatTextProblem, integerTextProblem, orderDateProblem } from './sale-values';

const OWNER = { accountId: 'acct', ingestionId: 'ingest' };

/** One JSON record through a new encoder; `copy` is the stage's text. */
function json(source: string) {
  const encoder = new SaleCopyEncoder(OWNER);
  encoder.jsonRecord(source, 7);
  return { encoder, copy: encoder.take().stage };
}

function problems(source: string): Array<[string, string]> {
  return json(source).encoder.errors.map((e) => [e.field, e.reason]);
}

// Floats that JSON.stringify writes with a decimal part (it writes 10.0 as 10).
const FLOATS = { OrderTotal: 100.5, OrderTotalWeight: 1.25, OrderDiscount: 0.5, ProductPrice: 40.25, ShippingPrice: 9.9 };
const sale = (overrides: Record<string, unknown> = {}) => JSON.stringify({ ...JSON.parse(saleJson(saleCells(3))), ...FLOATS, ...overrides });

describe('Sale values', () => {
  it.each([
    ['10.0', true],
    ['-3.25', true],
    ['1.5e3', true],
    ['10', false],
    ['1e3', false],
    ['10.', false],
    ['.5', false],
    ['10,5', false],
    ['1.0e999', false],
    ['1.0e-400', false],
    ['4.9e-324', true],
    ['0.0', true],
    ['+1.5', true],
    ['abc', false],
  ])('float %j accepted: %s', (text, ok) => expect(floatTextProblem(text) === null).toBe(ok));

  it.each([
    ['0', true],
    ['-2147483648', true],
    ['2147483647', true],
    ['2147483648', false],
    ['1.0', false],
    ['1e2', false],
    ['', false],
  ])('integer %j accepted: %s', (text, ok) => expect(integerTextProblem(text) === null).toBe(ok));

  it.each([
    ['2024-05-31T13:45:00.123Z', true],
    ['2024-02-29T00:00:00.000Z', true],
    ['2023-02-29T00:00:00.000Z', false],
    ['2024-05-31T13:45:00Z', false],
    ['2024-05-31T13:45:00.12Z', false],
    ['2024-05-31T13:45:00.123+00:00', false],
    ['2024-05-31T24:00:00.000Z', false],
    ['0000-01-01T00:00:00.000Z', false],
    ['2024-13-01T00:00:00.000Z', false],
  ])('OrderDate %j accepted: %s', (text, ok) => expect(orderDateProblem(text) === null).toBe(ok));

  it.each([
    ['1990-05-31T00:00:00Z', true],
    ['1990-05-31T00:00:00.5-03:00', true],
    ['1990-05-31 10:00:00+05:30', true],
    ['1990-05-31', false],
    ['1990-05-31T00:00:00', false],
    ['1990-05-31T00:00:00+25:00', false],
    ['1990-04-31T00:00:00Z', false],
  ])('CustomerBirth %j accepted: %s', (text, ok) => expect(dateTimeProblem(text) === null).toBe(ok));
});

describe('SaleCopyEncoder (JSON records)', () => {
  it('turns a valid sale into one stage line: account, ingestion, the 32 fields', () => {
    const { encoder, copy } = json(saleJson(saleCells(3)));
    expect(encoder.accepted).toBe(1);
    const columns = copy.slice(0, -1).split('\t');
    expect(columns).toHaveLength(2 + SALE_FIELDS.length);
    expect(columns.slice(0, 3)).toEqual(['acct', 'ingest', saleCells(3).OrderId]);
  });

  it('refuses a float written without a decimal part, and accepts 10.0', () => {
    expect(problems(sale().replace(/"ProductPrice":[\d.]+/, '"ProductPrice":10'))).toEqual([['ProductPrice', expect.stringContaining('decimal part')]]);
    expect(problems(sale().replace(/"ProductPrice":[\d.]+/, '"ProductPrice":1e3'))).toEqual([['ProductPrice', expect.stringContaining('decimal part')]]);
    expect(problems(sale().replace(/"ProductPrice":[\d.]+/, '"ProductPrice": 10.0 '))).toEqual([]);
    // The same text inside another field's string is not the field.
    expect(problems(sale({ ProductName: '"ProductPrice":10,' }))).toEqual([]);
  });

  it('refuses a float that underflows to zero, as CSV does, and keeps a real zero', () => {
    const withPrice = (literal: string) => sale().replace(/"ProductPrice":[\d.]+/, `"ProductPrice":${literal}`);
    expect(problems(withPrice('1.0e-400'))).toEqual([['ProductPrice', expect.stringContaining('out of the range')]]);
    expect(problems(withPrice('-0.5E-999'))).toEqual([['ProductPrice', expect.stringContaining('out of the range')]]);
    expect(problems(withPrice('0.0'))).toEqual([]);
    expect(problems(withPrice('0.0e-400'))).toEqual([]);
  });

  it('checks types, required fields and unknown fields, listing every problem of the record', () => {
    expect(problems(sale({ OrderId: 12, ProductQuantity: 2.5, OrderTotal: '10.5', StoreId: '  ', CustomerEmail: null, Extra: 1, OrderDate: 5 }))).toEqual([
      ['Extra', 'is not a Sale field'],
      ['OrderId', 'must be a string'],
      ['OrderDate', expect.stringContaining('ISO 8601')],
      ['OrderTotal', expect.stringContaining('decimal part')],
      ['ProductQuantity', expect.stringContaining('integer')],
      ['StoreId', 'is required'],
      ['CustomerEmail', 'is required'],
    ]);
  });

  it.each([['[1]'], ['"text"'], ['12'], ['null'], ['{"a":tru}']])('rejects the element %s as one row error', (source) => {
    const { encoder } = json(source);
    expect(encoder.rejected).toBe(1);
    expect(encoder.errors[0]).toMatchObject({ line: 7, record: 1, field: '' });
  });

  it('refuses a number field holding an object that cannot be turned into text, as a row error', () => {
    expect(problems(sale({ OrderDiscount: { toString: false } }))).toEqual([['OrderDiscount', expect.any(String)]]);
    expect(problems(sale({ ProductQuantity: { toString: 1 } }))).toEqual([['ProductQuantity', expect.any(String)]]);
  });

  it('escapes what COPY text must, and refuses text PostgreSQL cannot hold', () => {
    const { copy } = json(sale({ ProductName: 'tab\there\nnew \\ back' }));
    expect(copy).toContain('tab\\there\\nnew \\\\ back');
    expect(problems(sale({ ProductName: 'nul\u0000' }))).toEqual([['ProductName', expect.stringContaining('NUL')]]);
    expect(problems(sale({ ProductName: 'half \ud800' }))).toEqual([['ProductName', expect.stringContaining('surrogate')]]);
    expect(copyText('a\\b\tc\rd\ne')).toBe('a\\\\b\\tc\\rd\\ne');
  });

  it('never throws, and each record is one valid line or one stored error per problem', () => {
    const value = fc.oneof(fc.string(), fc.double(), fc.integer(), fc.constant(null), fc.boolean(), fc.jsonValue());
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...SALE_FIELDS.map((f) => f.name), 'Other'), value), (overrides) => {
        const { encoder, copy } = json(sale(overrides));
        expect(encoder.received).toBe(1);
        if (encoder.accepted === 1) {
          expect(encoder.stored).toEqual([]);
          expect(copy.slice(0, -1).split('\n')).toHaveLength(1);
          expect(copy.slice(0, -1).split('\t')).toHaveLength(2 + SALE_FIELDS.length);
        } else {
          expect(copy).toBe('');
          expect(encoder.stored).toHaveLength(encoder.errorCount);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('SaleCopyEncoder bounds', () => {
  it('keeps at most maxStoredErrors errors to store and counts the rest', () => {
    const encoder = new SaleCopyEncoder(OWNER, 3);
    for (let line = 2; line < 12; line++) encoder.unreadable(line, 'has the wrong number of columns');
    expect(encoder.take()).toEqual({ sales: '', stage: '' });
    expect(encoder.stored.map((e) => e.line)).toEqual([2, 3, 4]);
    expect(encoder).toMatchObject({ received: 10, rejected: 10, errorCount: 10 });
    expect(encoder.errors).toHaveLength(10);
  });

  it('counts the rejected records among the first ERROR_SAMPLE_RECORDS only', () => {
    const encoder = new SaleCopyEncoder(OWNER, 0);
    for (let line = 1; line <= ERROR_SAMPLE_RECORDS + 10; line++) encoder.unreadable(line, 'bad');
    expect(encoder.sampleRejected).toBe(ERROR_SAMPLE_RECORDS);
    expect(encoder.rejected).toBe(ERROR_SAMPLE_RECORDS + 10);
    expect(encoder.take()).toEqual({ sales: '', stage: '' });
  });
});

describe('SaleCopyEncoder into sales', () => {
  const csvLine = (encoder: SaleCopyEncoder, n: number, line: number) => {
    const cells = saleCells(n);
    encoder.csvRecord(
      SALE_FIELDS.map((f) => cells[f.name]),
      line,
      false,
      false,
    );
  };

  it('sends lines straight into sales until a key repeats, then every later line to the stage', () => {
    const encoder = new SaleCopyEncoder(OWNER);
    encoder.intoSales();
    for (const n of [1, 2, 3]) csvLine(encoder, n, n + 1);
    csvLine(encoder, 2, 5);
    csvLine(encoder, 4, 6);
    const { sales, stage } = encoder.take();
    const salesLines = sales
      .slice(0, -1)
      .split('\n')
      .map((l) => l.split('\t'));
    expect(salesLines.map((l) => l.slice(0, 3))).toEqual([1, 2, 3].map((n) => ['acct', 'ingest', saleCells(n).OrderId]));
    expect(salesLines[0]).toHaveLength(2 + SALE_FIELDS.length);
    expect(
      stage
        .slice(0, -1)
        .split('\n')
        .map((l) => l.split('\t').slice(0, 3)),
    ).toEqual([
      ['acct', 'ingest', saleCells(2).OrderId],
      ['acct', 'ingest', saleCells(4).OrderId],
    ]);
    expect(encoder).toMatchObject({ accepted: 5 });
    expect([...encoder.salesDays]).toEqual([...new Set([1, 2, 3].map((n) => saleCells(n).OrderDate.slice(0, 10)))]);
  });

  it('without intoSales, sends every line to the stage', () => {
    const encoder = new SaleCopyEncoder(OWNER);
    csvLine(encoder, 1, 2);
    expect(encoder.take().sales).toBe('');
  });

  it('after stopIntoSales, sends every line to the stage although no key repeats', () => {
    const encoder = new SaleCopyEncoder(OWNER);
    encoder.intoSales();
    csvLine(encoder, 1, 2);
    encoder.stopIntoSales();
    csvLine(encoder, 2, 3);
    const { sales, stage } = encoder.take();
    expect([sales, stage].map((text) => text.split('\t')[2])).toEqual([saleCells(1).OrderId, saleCells(2).OrderId]);
  });
});
