import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { csvBoundaries, jsonBoundaries, partBytes, partSize, planParts, type Plan } from './part-plan';

const HEADER = 'Name;Note\n';
/** Text with everything that can fool a record scanner: quotes, separators, newlines, brackets, escapes, non-ASCII. */
const tricky = fc.string({ unit: fc.constantFrom('a', 'é', '"', ';', '\n', '\r', '\\', '{', '}', '[', ']', ',', ' '), maxLength: 30 });
const csvCell = (value: string) => (/[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);
const csvRecord = ([a, b]: [string, string]) => `${csvCell(a)};${csvCell(b)}\n`;

async function collect(file: string, plan: Plan): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for (let i = 0; i < plan.parts.length; i++) {
    const chunks: Buffer[] = [];
    for await (const chunk of partBytes(file, plan, i)) chunks.push(chunk);
    parts.push(Buffer.concat(chunks));
  }
  return parts;
}

describe('planParts', () => {
  let dir: string;
  let n = 0;
  const write = (text: string) => {
    const file = join(dir, `f${n++}`);
    writeFileSync(file, text);
    return file;
  };

  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'part-plan-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends a file within the limit as it is, in one part', async () => {
    const text = HEADER + 'a;b\n';
    const file = write(text);
    const plan = await planParts(file, 'csv', Buffer.byteLength(text));
    expect(plan).toMatchObject({ parts: [{ start: 0, end: Buffer.byteLength(text) }], split: false });
    expect((await collect(file, plan)).map(String)).toEqual([text]);
  });

  it('cuts a CSV file between records: each part has the header, fits, and together they hold every record once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(tricky, tricky), { minLength: 1, maxLength: 40 }), fc.nat(200), async (rows, slack) => {
        const records = rows.map(csvRecord);
        const file = write(HEADER + records.join(''));
        const longest = Math.max(...records.map((r) => Buffer.byteLength(r)));
        const maxBytes = Buffer.byteLength(HEADER) + longest + slack;
        const plan = await planParts(file, 'csv', maxBytes);
        const parts = await collect(file, plan);
        const ends = new Set(records.map((_r, i) => Buffer.byteLength(HEADER + records.slice(0, i + 1).join(''))));
        for (const [i, part] of parts.entries()) {
          expect(part.length).toBeLessThanOrEqual(maxBytes);
          expect(part.length).toBe(partSize(plan, i));
          expect(part.subarray(0, Buffer.byteLength(HEADER)).toString()).toBe(HEADER);
          expect(ends.has(plan.parts[i].end)).toBe(true);
        }
        const bodies = parts.map((part) => part.subarray(Buffer.byteLength(HEADER)).toString());
        expect(bodies.join('')).toBe(records.join(''));
      }),
      { numRuns: 60 },
    );
  });

  it('cuts a JSON array between elements: each part is an array that fits, and together they hold every element once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: tricky, note: tricky, n: fc.integer() }), { minLength: 1, maxLength: 40 }),
        fc.nat(200),
        async (sales, slack) => {
          const elements = sales.map((sale) => JSON.stringify(sale));
          const file = write(`[\n${elements.join(',\n')}\n]\n`);
          const maxBytes = 2 + Math.max(...elements.map((e) => Buffer.byteLength(e))) + slack;
          const plan = await planParts(file, 'json', maxBytes);
          const parts = await collect(file, plan);
          const parsed = parts.map((part, i) => {
            expect(part.length).toBeLessThanOrEqual(plan.split ? maxBytes : Infinity);
            expect(part.length).toBe(partSize(plan, i));
            return JSON.parse(part.toString()) as unknown[];
          });
          expect(parsed.flat()).toEqual(sales);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps a last CSV record without a line end, and keeps it within the limit', async () => {
    const text = `${HEADER}a;b\nc;d\nlast;one`;
    const file = write(text);
    const plan = await planParts(file, 'csv', Buffer.byteLength(HEADER) + 8);
    const parts = (await collect(file, plan)).map(String);
    expect(parts).toEqual([`${HEADER}a;b\nc;d\n`, `${HEADER}last;one`]);
    await expect(planParts(file, 'csv', Buffer.byteLength(HEADER) + 7)).rejects.toThrow(`A record at byte ${Buffer.byteLength(HEADER) + 8} does not fit`);
  });

  it('refuses a record that does not fit in a part even alone', async () => {
    const file = write(`${HEADER}a;b\n${'x'.repeat(50)};y\n`);
    await expect(planParts(file, 'csv', 30)).rejects.toThrow(`A record at byte ${Buffer.byteLength(HEADER) + 4} does not fit in a part of 30 bytes.`);
  });

  it('refuses a CSV file without a complete header line', async () => {
    await expect(planParts(write('Name;Note'), 'csv', 5)).rejects.toThrow('The CSV file has no complete header line.');
  });
});

describe('record boundaries', () => {
  /** The boundaries found in `bytes` read in pieces cut at `cuts`. */
  const scan = (make: typeof csvBoundaries, bytes: Buffer, cuts: number[]) => {
    const scanner = make();
    const points = [0, ...[...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b), bytes.length];
    return points.slice(1).flatMap((end, i) => scanner(bytes.subarray(points[i], end), points[i]));
  };

  it('finds the same CSV records however the file is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(tricky, tricky), { maxLength: 20 }), fc.array(fc.nat()), (rows, cuts) => {
        const bytes = Buffer.from(HEADER + rows.map(csvRecord).join(''));
        expect(scan(csvBoundaries, bytes, cuts)).toEqual(scan(csvBoundaries, bytes, []));
        expect(scan(csvBoundaries, bytes, [])).toHaveLength(rows.length);
      }),
    );
  });

  it('finds the same JSON elements however the file is cut into chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(tricky, fc.oneof(tricky, fc.array(tricky))), { maxLength: 20 }), fc.array(fc.nat()), (sales, cuts) => {
        const bytes = Buffer.from(JSON.stringify(sales, null, 1));
        const found = scan(jsonBoundaries, bytes, cuts);
        expect(found).toEqual(scan(jsonBoundaries, bytes, []));
        expect(found.map(([start, end]) => JSON.parse(bytes.subarray(start, end).toString()))).toEqual(sales);
      }),
    );
  });
});
