import { StringDecoder } from 'node:string_decoder';
import Papa from 'papaparse';
import { SALE_FIELD_INDEX, SALE_FIELD_NAMES, SALE_FIELDS } from './sale-fields';
import type { SaleCopyEncoder } from './sale-copy.encoder';
import { MalformedSalesFileException } from './sales.exception';

const DELIMITER = ';';
const MAX_HEADER_CHARS = 64 * 1024;
const LONE_CR = /\r(?!\n)/;

interface PapaParser {
  parse(input: string, baseIndex: number, ignoreLastRow: boolean): Papa.ParseResult<string[]>;
}

/**
 * Reads a streamed semicolon-separated Sale file into the encoder, chunk by chunk:
 * papaparse's own parser (the fastest we measured) on the decoded text, holding back the
 * last, possibly incomplete, row until the next chunk. The header decides the line ending
 * (LF or CRLF) and which column holds which field; a leading BOM is skipped.
 */
export class CsvSalesReader {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private parser: PapaParser | null = null;
  /** For each header column, the index of its Sale field. */
  private fieldOf: number[] = [];
  /** The header is the spec's 32 fields in the spec's order: rows need no rearranging. */
  private inOrder = false;
  /** Physical line of the first character of `pending`. */
  private line = 1;
  private crlf = false;

  constructor(
    private readonly encoder: SaleCopyEncoder,
    private readonly maxRecordChars: number,
  ) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    if (!this.parser && !this.readHeader(false)) return;
    this.parseRows(false);
  }

  end(): void {
    this.pending += this.decoder.end();
    if (!this.parser) this.readHeader(true);
    this.parseRows(true);
  }

  /** Reads the header once its line is complete; false while it is not. */
  private readHeader(final: boolean): boolean {
    let eol = this.pending.indexOf('\n');
    if (eol < 0) {
      if (this.pending.length > MAX_HEADER_CHARS) throw new MalformedSalesFileException('The first line (the header) is too long.', 1);
      if (!final) return false;
      eol = this.pending.length;
    }
    const crlf = eol > 0 && this.pending[eol - 1] === '\r';
    let text = this.pending.slice(0, crlf ? eol - 1 : eol);
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === '')
      throw new MalformedSalesFileException(`The file has no header: its first line must name the fields, separated by "${DELIMITER}".`, 1);
    const parser = new Papa.Parser({ delimiter: DELIMITER, newline: crlf ? '\r\n' : '\n' }) as unknown as PapaParser;
    const names = parser.parse(text, 0, false).data[0] ?? [];
    this.fieldOf = this.mapHeader(names);
    this.inOrder = this.fieldOf.length === SALE_FIELDS.length && this.fieldOf.every((f, i) => f === i);
    this.parser = parser;
    this.crlf = crlf;
    this.pending = this.pending.slice(eol + 1);
    this.line = 2;
    return true;
  }

  private mapHeader(names: string[]): number[] {
    const unknown = names.filter((n) => !SALE_FIELD_INDEX.has(n));
    if (unknown.length > 0) {
      const hint = names.length === 1 && /[,\t|]/.test(names[0]) ? ` Fields are separated by "${DELIMITER}".` : '';
      const shown = unknown.slice(0, 5).map((n) => JSON.stringify(n.length > 40 ? `${n.slice(0, 40)}…` : n));
      throw new MalformedSalesFileException(
        `The header names unknown field${unknown.length === 1 ? '' : 's'} ${shown.join(', ')}${unknown.length > 5 ? ' and more' : ''}; the first line must name Sale fields (${SALE_FIELD_NAMES.join(';')}).${hint}`,
        1,
      );
    }
    const duplicate = names.find((n, i) => names.indexOf(n) !== i);
    if (duplicate) throw new MalformedSalesFileException(`The header names ${duplicate} twice.`, 1);
    const missing = SALE_FIELDS.filter((f) => f.required && !names.includes(f.name)).map((f) => f.name);
    if (missing.length > 0)
      throw new MalformedSalesFileException(`The header lacks the required field${missing.length === 1 ? '' : 's'} ${missing.join(', ')}.`, 1);
    return names.map((n) => SALE_FIELD_INDEX.get(n)!);
  }

  private parseRows(final: boolean): void {
    if (!this.parser || this.pending === '') return;
    const input = this.pending;
    const result = this.parser.parse(input, 0, !final);
    const rows = result.data;
    // Quotes may wrap delimiters and newlines: a row whose cells hold a newline spans lines and needs escaping.
    const quoted = input.includes('"');
    const inspect = input.includes('\u0000') || input.includes('\uFFFD');
    // Tabs and backslashes need escaping wherever they are; so does a CR that does not end a CRLF line (COPY text refuses it raw).
    const escape = input.includes('\\') || input.includes('\t') || (this.crlf ? LONE_CR.test(input) : input.includes('\r'));
    const broken = new Set(result.errors.map((e) => e.row).filter((r): r is number => r !== undefined && r < rows.length));
    const columns = this.fieldOf.length;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      const line = this.line;
      const newlines = quoted ? newlinesIn(row) : 0;
      this.line += 1 + newlines;
      if (row.length === 1 && row[0] === '') continue; // a blank line
      if (broken.has(r)) this.encoder.unreadable(line, 'has a quoted field that is not closed properly');
      else if (row.length !== columns) this.encoder.unreadable(line, `has ${row.length} column${row.length === 1 ? '' : 's'}, the header has ${columns}`);
      else this.encoder.csvRecord(this.inOrder ? row : this.arrange(row), line, inspect, escape || newlines > 0);
    }
    this.pending = final ? '' : input.slice(result.meta.cursor);
    if (this.pending.length > this.maxRecordChars) {
      throw new MalformedSalesFileException(`A record is longer than ${this.maxRecordChars} characters (an unterminated quote?).`, this.line);
    }
  }

  private arrange(row: string[]): Array<string | undefined> {
    const cells = new Array<string | undefined>(SALE_FIELDS.length);
    for (let c = 0; c < row.length; c++) cells[this.fieldOf[c]] = row[c];
    return cells;
  }
}

function newlinesIn(row: string[]): number {
  let count = 0;
  for (const cell of row) {
    for (let at = cell.indexOf('\n'); at >= 0; at = cell.indexOf('\n', at + 1)) count++;
  }
  return count;
}
