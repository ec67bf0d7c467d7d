import fc from 'fast-check';
import { NdjsonLinesSplitter } from './ndjson-lines.splitter';
import { MalformedSalesFileException } from './sales.exception';

/** Feeds `bytes` cut at `cuts` and returns the lines' texts and numbers. */
function split(bytes: Buffer, cuts: number[] = [], max = 1 << 20): Array<{ source: string; line: number }> {
  const splitter = new NdjsonLinesSplitter(max);
  const out: Array<{ source: string; line: number }> = [];
  const sink = (source: string, line: number) => out.push({ source, line });
  const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
  let from = 0;
  for (const at of [...points, bytes.length]) {
    splitter.push(bytes.subarray(from, at), sink);
    from = at;
  }
  splitter.end(sink);
  return out;
}

/** Every byte on its own: each multi-byte character is cut in the middle. */
function byteByByte(bytes: Buffer): number[] {
  return Array.from({ length: bytes.length }, (_, i) => i);
}

describe('NdjsonLinesSplitter', () => {
  it('gives back every non-blank line with its number, however the bytes are cut (multi-byte characters split too)', () => {
    const unit = fc.constantFrom('{', '}', '"', ':', ' ', 'a', 'é', '😀', '€', '\u2028', '\r');
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit }),
            fc.constant(''),
            fc.string({ unit: 'binary' }).map((s) => s.replace(/[\r\n\uFEFF]/g, '')),
          ),
          { maxLength: 8 },
        ),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        fc.boolean(),
        (lines, cuts, crlf, trailing) => {
          const clean = lines.map((l) => l.replace(/\r/g, ''));
          const text = clean.join(crlf ? '\r\n' : '\n') + (trailing ? '\n' : '');
          const bytes = Buffer.from(text);
          const expected = clean.map((source, i) => ({ source, line: i + 1 })).filter((l) => !/^[ \t]*$/.test(l.source));
          expect(
            split(
              bytes,
              cuts.map((c) => c % (bytes.length + 1)),
            ),
          ).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('decodes characters cut at every byte', () => {
    const text = '{"ProductName":"Café ☕ 😀"}\n\n{"StoreName":"São Paulo"}';
    expect(split(Buffer.from(text), byteByByte(Buffer.from(text)))).toEqual([
      { source: '{"ProductName":"Café ☕ 😀"}', line: 1 },
      { source: '{"StoreName":"São Paulo"}', line: 3 },
    ]);
  });

  it('skips a leading BOM, even cut in the middle', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\r\n')]);
    expect(split(bytes, [1, 2])).toEqual([{ source: '{"a":1}', line: 1 }]);
  });

  it('refuses a line longer than the limit, naming it, whether it arrives whole or in pieces', () => {
    const bytes = Buffer.from(`{"a":1}\n${'x'.repeat(50)}\n`);
    for (const cuts of [[], [10, 20, 30]]) {
      let caught: unknown;
      try {
        split(bytes, cuts, 40);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(MalformedSalesFileException);
      expect((caught as MalformedSalesFileException).extras).toEqual({ line: 2 });
    }
  });
});
