import fc from 'fast-check';
import { documentDigits, validCpfCnpj } from './cpf-cnpj';

describe('CPF/CNPJ', () => {
  it.each(['529.982.247-25', '52998224725', '11.222.333/0001-81', '11222333000181', ' 529 982 247 25 '])('%s is valid', (v) =>
    expect(validCpfCnpj(v)).toBe(true),
  );

  it.each(['529.982.247-24', '11.222.333/0001-80', '111.111.111-11', '00000000000000', '1234', 'abc52998224725', ''])('%s is not', (v) =>
    expect(validCpfCnpj(v)).toBe(false),
  );

  it('reads the same digits whatever the punctuation', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...'0123456789'), { minLength: 1, maxLength: 14 }),
        fc.array(fc.constantFrom('.', '-', '/', ' ')),
        (digits, marks) => {
          const written = digits.map((d, i) => d + (marks[i] ?? '')).join('');
          expect(documentDigits(written)).toBe(digits.join(''));
        },
      ),
    );
  });

  it('refuses a changed digit of a valid number', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 9 }), (at, delta) => {
        const d = '52998224725'.split('');
        d[at] = String((Number(d[at]) + delta) % 10);
        expect(validCpfCnpj(d.join(''))).toBe(false);
      }),
    );
  });
});
