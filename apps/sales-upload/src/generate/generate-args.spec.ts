import { GENERATE_USAGE, parseGenerateArgs } from './generate-args';

describe('parseGenerateArgs', () => {
  it('makes a valid CSV file of N rows to stdout by default', () => {
    expect(parseGenerateArgs(['--rows', '10'])).toEqual({
      file: { format: 'csv', rows: 10, bytes: undefined, invalidEvery: 0, seed: 1, crlf: false },
      out: undefined,
    });
  });

  it('takes every option', () => {
    const args = parseGenerateArgs(['--format', 'json', '--size', '2MB', '--invalid-every', '5', '--seed', '11', '--crlf', '--out', 'f.json']);
    expect(args).toEqual({ file: { format: 'json', rows: undefined, bytes: 2 * 1024 ** 2, invalidEvery: 5, seed: 11, crlf: true }, out: 'f.json' });
  });

  it.each([
    [[], GENERATE_USAGE],
    [['--format', 'csv'], GENERATE_USAGE],
    [['--rows', '1', '--format', 'xml'], '--format is csv or json'],
    [['--rows', 'many'], '--rows is a whole number, not many'],
    [['--rows', '1', '--seed', '1.5'], '--seed is a whole number, not 1.5'],
    [['--size', 'huge'], 'Not a size: huge'],
    [['--rows', '1', '--crlf', 'yes'], "Unexpected argument 'yes'"],
    [['--rows', '1', '--lines', '3'], "Unknown option '--lines'"],
  ])('refuses %j', (argv, message) => {
    expect(() => parseGenerateArgs(argv)).toThrow(message);
  });
});
