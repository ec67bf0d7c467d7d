import fc from 'fast-check';
import { decodeSaleCursor, encodeSaleCursor } from './sale-cursor';
import { isSalesInstant, salesInstant } from './sale-line.dto';
import { decimalFloat } from './sale-lines.service';

describe('sale line reads', () => {
  it('decodes every cursor it encodes, and nothing else it would send to SQL', () => {
    const instant = fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString().replace('Z', '000Z'));
    const key = fc.string({ maxLength: 40 }).filter((s) => !/[\0\uFFFD]/.test(s) && !/[\uD800-\uDFFF]/.test(s));
    fc.assert(
      fc.property(instant, key, key, (orderDate, orderId, productId) => {
        expect(decodeSaleCursor(encodeSaleCursor({ orderDate, orderId, productId }))).toEqual({ orderDate, orderId, productId });
      }),
    );
    for (const bad of [
      '',
      'abc',
      '!!',
      Buffer.from('["2026-02-30T00:00:00.000000Z","a","b"]').toString('base64url'),
      Buffer.from('["x","a"]').toString('base64url'),
    ]) {
      expect(decodeSaleCursor(bad)).toBeNull();
    }
    fc.assert(fc.property(fc.string(), (text) => void decodeSaleCursor(text)));
  });

  it.each([
    ['2026-11-01', true],
    ['2026-11-01T12:00Z', true],
    ['2026-11-01T12:00:00.123456-03:00', true],
    ['2026-02-29', false],
    ['2026-11-01T24:00:00Z', false],
    ['2026-11-01T12:00:00', false],
    ['2026-11-01T12:00:00+15:00', false],
    ['0000-01-01', false],
    ['2026-W01', false],
  ])('%s is a sales instant: %s', (text, ok) => expect(isSalesInstant(text)).toBe(ok));

  it('reads a date alone as midnight UTC', () => expect(salesInstant('2026-11-01')).toBe('2026-11-01T00:00:00Z'));

  it.each([
    ['10', '10.0'],
    ['-3', '-3.0'],
    ['40.25', '40.25'],
    ['1e+21', '1.0e+21'],
    ['-1.5e-07', '-1.5e-07'],
    ['1e-07', '1.0e-07'],
  ])('writes the float %s as the upload wants it: %s', (text, written) => expect(decimalFloat(text)).toBe(written));
});
