import { changes, lossyNumberPath } from './lossy-number';

const path = (json: string) => lossyNumberPath(Buffer.from(json));

describe('lossy numbers', () => {
  it.each(['12345678901234567890', '1e400', '-1e400', '1e-400', '0.12345678901234567891', '1234567890.1234567890', '9007199254740993'])('finds %s', (n) => {
    expect(changes(n)).toBe(true);
  });

  it.each([
    '0',
    '-0',
    '1',
    '-1.5',
    '0.1',
    '1e21',
    '1E+21',
    '1.0',
    '100',
    '9007199254740992',
    '12345678901234567000',
    '1e308',
    '5e-324',
    '0.000000000000000001',
    '123456789012345.6',
    '1.7976931348623157e308',
  ])('keeps %s', (n) => expect(changes(n)).toBe(false));

  it('names the path of the first lossy number', () => {
    expect(path('{"data":{"ok":1,"big":12345678901234567890,"huge":1e400}}')).toBe('data.big');
    expect(path('{"documents":[{"key":"a","data":{}},{"key":"b","data":{"x":[1,2,1e400]}}]}')).toBe('documents.1.data.x.2');
    expect(path('{"a\\"b":{"c,d":[0.123456789012345678901]}}')).toBe('a"b.c,d.0');
  });

  it('ignores digits inside strings and passes ordinary bodies', () => {
    expect(path('{"card":"4111111111111111111111","e":"x1e400","n":[1,2.5,-3e10]}')).toBeNull();
    expect(path('{"a":1}')).toBeNull();
    expect(path('[12345678901234567000, 1.5e300]')).toBeNull();
  });
});
