import fc from 'fast-check';
import { csvCell, FIELDS, saleCells } from '../../test/support/sale-fixtures';
import { CsvSalesReader } from './csv-sales.reader';
import { SaleCopyEncoder } from './sale-copy.encoder';

const OWNER = { accountId: 'acct', ingestionId: 'ingest' };
import { MalformedSalesFileException } from './sales.exception';

/** Reads `text` cut at `cuts` (byte offsets); returns the encoder and the stage's COPY lines split into columns, without the account (ingestion, fields). */
function read(text: string | Buffer, cuts: number[] = []) {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const encoder = new SaleCopyEncoder(OWNER);
  const reader = new CsvSalesReader(encoder, 1 << 20);
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  let copy = '';
  for (const at of [...points, bytes.length]) {
    reader.push(bytes.subarray(from, at));
    copy += encoder.take().stage;
    from = at;
  }
  reader.end();
  copy += encoder.take().stage;
  const lines =
    copy === ''
      ? []
      : copy
          .slice(0, -1)
          .split('\n')
          .map((l) => l.split('\t').slice(1));
  return { encoder, lines };
}

function csv(rows: Array<Record<string, string>>, eol = '\n', names: readonly string[] = FIELDS): string {
  return [names.join(';'), ...rows.map((r) => names.map((n) => csvCell(r[n] ?? '')).join(';'))].join(eol) + eol;
}

/** COPY text back to the value (inverse of the encoder's escaping). */
function unescape(value: string): string | null {
  if (value === '\\N') return null;
  return value.replace(/\\(.)/g, (_, c: string) => ({ t: '\t', n: '\n', r: '\r', '\\': '\\' })[c] ?? c);
}

describe('CsvSalesReader', () => {
  it('reads every field of every row, LF or CRLF, with a BOM, cut anywhere', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ name: fc.string({ unit: fc.constantFrom('a', ';', '"', '\n', '\r\n', '\t', '\\', 'é', '😀', ' ') }), n: fc.nat(1000) }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.constantFrom('\n', '\r\n'),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 10 }),
        (specs, eol, bom, cuts) => {
          const rows: Array<Record<string, string>> = specs.map(({ name, n }) => ({ ...saleCells(n + 1), ProductName: name.trim() === '' ? 'x' : name }));
          const { encoder, lines } = read((bom ? '\uFEFF' : '') + csv(rows, eol), cuts);
          expect(encoder.errors).toEqual([]);
          expect(lines.map((l) => unescape(l[1 + FIELDS.indexOf('ProductName')]))).toEqual(rows.map((r) => r.ProductName));
          expect(lines.map((l) => l.slice(1, 33).map(unescape))).toEqual(rows.map((r) => FIELDS.map((f) => (r[f] === '' ? null : r[f]))));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('escapes a lone CR inside an unquoted field of a CRLF file (COPY text refuses it raw)', () => {
    const row = FIELDS.map((f) => csvCell(saleCells(1)[f]));
    row[FIELDS.indexOf('StoreName')] = 'a\rb';
    const { encoder, lines } = read(`${FIELDS.join(';')}\r\n${row.join(';')}\r\n`);
    expect(encoder.accepted).toBe(1);
    expect(lines[0][1 + FIELDS.indexOf('StoreName')]).toBe('a\\rb');
  });

  it('numbers records and the physical lines they start on (quoted newlines count)', () => {
    const rows = [saleCells(1), { ...saleCells(2), CustomerName: 'two\nlines' }, { ...saleCells(3), ProductPrice: '10' }];
    const { encoder } = read(csv(rows, '\r\n'));
    expect(encoder.errors).toEqual([{ line: 5, record: 3, field: 'ProductPrice', reason: expect.stringContaining('decimal part') }]);
  });

  it('takes the columns in any order and leaves optional ones out', () => {
    const names = ['ProductPrice', 'OrderId', 'OrderDate', 'OrderStatus', 'ProductId', 'StoreId', 'CustomerCPF_CNPJ', 'CustomerPhone', 'CustomerEmail'];
    const { encoder, lines } = read(csv([saleCells(7)], '\n', names));
    expect(encoder.accepted).toBe(1);
    expect(lines[0][1]).toBe(saleCells(7).OrderId);
    expect(lines[0][1 + FIELDS.indexOf('ProductName')]).toBe('\\N');
  });

  it('skips blank lines and reports a wrong column count as a row error', () => {
    const text = `${FIELDS.join(';')}\n\n${FIELDS.map((f) => csvCell(saleCells(1)[f])).join(';')}\na;b;c\n`;
    const { encoder } = read(text);
    expect(encoder.accepted).toBe(1);
    expect(encoder.errors).toEqual([{ line: 4, record: 2, field: '', reason: 'has 3 columns, the header has 32' }]);
  });

  it('reports an unterminated quote at the end as a row error', () => {
    const { encoder } = read(`${FIELDS.join(';')}\n"unclosed;x\n`);
    expect(encoder.rejected).toBe(1);
    expect(encoder.errors[0].reason).toMatch(/quoted field|columns/);
  });

  it.each([
    ['', /no header/],
    ['\n\n', /no header/],
    ['ORD-1;2024-01-01T00:00:00.000Z;paid\n', /unknown field/],
    [FIELDS.join(',') + '\n', /separated by ";"/],
    [FIELDS.join(';') + ';Extra\n', /unknown field "Extra"/],
    [FIELDS.join(';') + ';OrderId\n', /OrderId twice/],
    [FIELDS.filter((f) => f !== 'StoreId').join(';') + '\n', /lacks the required field StoreId/],
    ['\u0000\u0001\u00ff\u00fe garbage', /unknown field/],
  ])('refuses the file %j as a whole', (text, message) => {
    expect(() => read(text)).toThrow(message);
    expect(() => read(text)).toThrow(MalformedSalesFileException);
  });

  it('refuses a record that never ends (an unclosed quote) once it passes the record limit', () => {
    const encoder = new SaleCopyEncoder(OWNER);
    const reader = new CsvSalesReader(encoder, 1000);
    reader.push(Buffer.from(`${FIELDS.join(';')}\n"`));
    expect(() => reader.push(Buffer.from('x'.repeat(2000)))).toThrow(/longer than 1000/);
  });

  it('keeps bytes that are not UTF-8 and NUL characters out of the table', () => {
    const good = FIELDS.map((f) => csvCell(saleCells(1)[f]));
    const withNul = [...good];
    withNul[FIELDS.indexOf('ProductName')] = 'a\u0000b';
    const latin1 = Buffer.from(`${FIELDS.join(';')}\n${withNul.join(';')}\n`);
    const broken = Buffer.concat([latin1, Buffer.from(good.join(';').replace('Main', 'Mai\u00ff')), Buffer.from([0x0a])]);
    broken[broken.lastIndexOf('Mai') + 3] = 0xff;
    const { encoder } = read(broken);
    expect(encoder.errors.map((e) => [e.record, e.field])).toEqual([
      [1, 'ProductName'],
      [2, 'StoreName'],
    ]);
  });
});
