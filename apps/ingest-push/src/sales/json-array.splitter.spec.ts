import fc from 'fast-check';
import { JsonArraySplitter } from './json-array.splitter';
import { MalformedSalesFileException } from './sales.exception';

/** Feeds `bytes` cut at `cuts` and returns the elements' sources and lines. */
function split(bytes: Buffer, cuts: number[] = [], max = 1 << 20): Array<{ source: string; line: number }> {
  const splitter = new JsonArraySplitter(max);
  const out: Array<{ source: string; line: number }> = [];
  const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
  let from = 0;
  for (const at of [...points, bytes.length]) {
    splitter.push(bytes.subarray(from, at), (source, line) => out.push({ source, line }));
    from = at;
  }
  splitter.end();
  return out;
}

function failure(bytes: Buffer, cuts: number[] = []): MalformedSalesFileException {
  try {
    split(bytes, cuts);
  } catch (error) {
    if (error instanceof MalformedSalesFileException) return error;
    throw error;
  }
  throw new Error('no failure');
}

const tricky = fc.oneof(
  fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', ' ', '\n', 'a', 'é', '😀', '\u2028', '\u0000') }),
  fc.string({ unit: 'binary' }),
);
const element = fc.oneof(
  fc.dictionary(tricky, fc.oneof(tricky, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.jsonValue())),
  fc.jsonValue(),
  tricky,
);

describe('JsonArraySplitter', () => {
  it('gives back every element of any array, however the bytes are cut', () => {
    fc.assert(
      fc.property(
        fc.array(element, { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.constantFrom(0, 2, '\t'),
        fc.boolean(),
        (items, cuts, indent, bom) => {
          const text = (bom ? '\uFEFF' : '') + JSON.stringify(items, null, indent);
          const bytes = Buffer.from(text);
          const elements = split(
            bytes,
            cuts.map((c) => c % (bytes.length + 1)),
          );
          expect(elements.map((e) => JSON.parse(e.source))).toEqual(JSON.parse(text.replace(/^\uFEFF/, '')));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('cuts one byte at a time as well as whole', () => {
    const text = '[ {"a":"}]\\"{","b":[1,{"c":"]"}]} ,\n"x\\\\",\n 12.5e3 , null,[[]],{"é":"😀"}]';
    const bytes = Buffer.from(text);
    const everyByte = Array.from({ length: bytes.length }, (_, i) => i);
    expect(split(bytes, everyByte).map((e) => e.source)).toEqual(split(bytes).map((e) => e.source));
    expect(split(bytes).map((e) => JSON.parse(e.source))).toEqual(JSON.parse(text));
  });

  it('reports the line each element starts on', () => {
    const text = '[\n{"a":\n"b"},\n\n{"c":"multi\\nline"}, {"d":1}\n]';
    expect(split(Buffer.from(text)).map((e) => e.line)).toEqual([2, 5, 5]);
  });

  it('accepts an empty array, with whitespace and a BOM', () => {
    expect(split(Buffer.from('\uFEFF \n[ \r\n ]\n'))).toEqual([]);
  });

  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['{"OrderId":"1"}', 'must be a JSON array'],
    ['"text"', 'must be a JSON array'],
    ['\x00\x01\x02binary', 'must be a JSON array'],
    ['[{"a":1},', 'truncated'],
    ['[{"a":"1}]', 'truncated'],
    ['[{"a":1}', 'truncated'],
    ['[{"a":1} {"b":2}]', 'Expected "," or "]"'],
    ['[{"a":1},]', 'Expected an element'],
    ['[,{"a":1}]', 'Expected an element or'],
    ['[{"a":1}] x', 'after the end of the array'],
    ['[] []', 'after the end of the array'],
  ])('refuses %j as a whole (%s)', (text, message) => {
    expect(failure(Buffer.from(text)).message).toContain(message);
  });

  it('refuses any proper prefix of an array (a truncated body), wherever it is cut', () => {
    fc.assert(
      fc.property(fc.array(element, { minLength: 1, maxLength: 5 }), fc.nat(), fc.array(fc.nat(), { maxLength: 5 }), (items, at, cuts) => {
        const bytes = Buffer.from(JSON.stringify(items));
        const prefix = bytes.subarray(0, at % bytes.length);
        expect(() =>
          split(
            prefix,
            cuts.map((c) => c % (prefix.length + 1)),
          ),
        ).toThrow(MalformedSalesFileException);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses any top level that is not an array', () => {
    fc.assert(
      fc.property(
        fc.jsonValue().filter((v) => !Array.isArray(v)),
        (value) => {
          expect(() => split(Buffer.from(JSON.stringify(value)))).toThrow(MalformedSalesFileException);
        },
      ),
    );
  });

  it('refuses an element larger than the limit, holding no more than that', () => {
    const text = `[{"a":"${'x'.repeat(5000)}"}]`;
    expect(() => split(Buffer.from(text), [100, 2000, 4000], 1000)).toThrow(/larger than 1000 bytes/);
  });

  it('hands malformed elements over whole, for JSON.parse to refuse', () => {
    const sources = split(Buffer.from('[{"a":tru}, 12x, {"b":"ok"}]')).map((e) => e.source);
    expect(sources).toEqual(['{"a":tru}', '12x', '{"b":"ok"}']);
  });
});
