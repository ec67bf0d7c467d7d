import { SALE_FIELD_INDEX, SALE_FIELDS, SALE_TYPES, type SaleField } from './sale-fields';
import {
  dateTimeProblem,
  FLOAT_RANGE_REASON,
  FLOAT_REASON,
  floatTextProblem,
  INTEGER_REASON,
  integerInRange,
  integerTextProblem,
  orderDateProblem,
  REQUIRED_REASON,
  TEXT_REASON,
  unstorableText,
} from './sale-values';
import type { RowError } from './ingestion.dto';
import { validCpfCnpj } from './cpf-cnpj';

/** How many row errors a response (and the summary) lists; the rest are stored, up to a limit. */
export const LISTED_ERRORS = 100;

/** The first records, whose rejected share decides whether an upload is Sale data at all. */
export const ERROR_SAMPLE_RECORDS = 100_000;

const NULL = '\\N';
const DOCUMENT = SALE_FIELD_INDEX.get('CustomerCPF_CNPJ')!;
export const CPF_CNPJ_REASON = 'must be a CPF (11 digits) or CNPJ (14 digits) with right check digits';
const ERROR_DATA = Array<string>(SALE_FIELDS.length).fill(NULL).join('\t');
const COPY_SPECIAL = /[\\\t\n\r]/g;
const HAS_COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as PostgreSQL's COPY text format wants it. */
export function copyText(value: string): string {
  return HAS_COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIAL, (c) => COPY_ESCAPES[c]) : value;
}

/**
 * Turns Sale records into lines of COPY text for the staging table
 * (`line, record, <32 fields>, error_field, error_reason`). A valid record is one line;
 * a rejected one is one line per problem with the data columns null, so the error list
 * travels in the same COPY and lands in the same transaction as the rows. Only the first
 * `maxStoredErrors` problems become lines; the rest are counted, so junk cannot grow the
 * database by more than that bound.
 */
export class SaleCopyEncoder {
  received = 0;
  accepted = 0;
  rejected = 0;
  errorCount = 0;
  storedErrors = 0;
  /** Rejected records among the first ERROR_SAMPLE_RECORDS. */
  sampleRejected = 0;
  readonly errors: RowError[] = [];
  private out: string[] = [];
  private problems: Array<[string, string]> = [];

  constructor(
    private readonly maxStoredErrors = Number.MAX_SAFE_INTEGER,
    private readonly checkCpfCnpj = false,
  ) {}

  /** COPY text of the records encoded since the last call ('' when none). */
  take(): string {
    if (this.out.length === 0) return '';
    const text = this.out.join('\n') + '\n';
    this.out = [];
    return text;
  }

  /**
   * One CSV record; `cells[i]` is the text of SALE_FIELDS[i] (undefined when the header
   * has no such column). `inspect`: the text may hold characters PostgreSQL refuses;
   * `escape`: it may hold characters COPY must escape (each checked per chunk, for speed).
   */
  csvRecord(cells: ReadonlyArray<string | undefined>, line: number, inspect: boolean, escape: boolean): void {
    const record = ++this.received;
    let data = '';
    for (let i = 0; i < SALE_FIELDS.length; i++) {
      const f = SALE_FIELDS[i];
      const text = cells[i];
      let problem: string | null = null;
      if (text === undefined || text === '' || (f.required && f.type === 'string' && text.trim() === '')) {
        if (f.required) problem = REQUIRED_REASON;
        else data += i === 0 ? NULL : '\t' + NULL;
      } else {
        problem = inspect && unstorableText(text) ? TEXT_REASON : textProblem(f, text);
        if (problem === null) data += (i === 0 ? '' : '\t') + (escape ? copyText(text) : text);
      }
      if (problem !== null) this.problems.push([f.name, problem]);
    }
    if (this.checkCpfCnpj) this.checkDocument(cells[DOCUMENT]);
    this.finish(record, line, data);
  }

  /** The opt-in check of CustomerCPF_CNPJ's digits, once the field passed its type's own checks. */
  private checkDocument(value: unknown): void {
    if (typeof value !== 'string' || value.trim() === '' || validCpfCnpj(value)) return;
    if (this.problems.some(([field]) => field === 'CustomerCPF_CNPJ')) return;
    this.problems.push(['CustomerCPF_CNPJ', CPF_CNPJ_REASON]);
  }

  /** A record that cannot be read at all (wrong column count, broken quotes). */
  unreadable(line: number, reason: string): void {
    const record = ++this.received;
    this.problems.push(['', reason]);
    this.finish(record, line, '');
  }

  /** One element of the JSON array, as its source text. */
  jsonRecord(source: string, line: number): void {
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch {
      return this.unreadable(line, 'is not valid JSON');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return this.unreadable(line, 'must be a JSON object with the Sale fields');
    }
    const record = ++this.received;
    const sale = value as Record<string, unknown>;
    for (const key of Object.keys(sale)) {
      if (!SALE_FIELD_INDEX.has(key)) this.problems.push([key, 'is not a Sale field']);
    }
    // Escapes are the only way JSON text gets NUL, surrogates or characters COPY must escape;
    // U+FFFD stands for bytes that were not UTF-8.
    const escaped = source.includes('\\');
    const inspect = (escaped && source.includes('\\u')) || source.includes('\uFFFD');
    let data = '';
    for (let i = 0; i < SALE_FIELDS.length; i++) {
      const f = SALE_FIELDS[i];
      const v = sale[f.name];
      let text: string | null = null;
      let problem: string | null = null;
      if (v === undefined || v === null || v === '' || (f.required && typeof v === 'string' && f.type === 'string' && v.trim() === '')) {
        if (f.required) problem = REQUIRED_REASON;
      } else if (f.type === 'float' || f.type === 'integer') {
        // Only a number is turned into text: String() of an object whose toString is not a function throws.
        if (typeof v !== 'number') problem = f.type === 'float' ? FLOAT_REASON : INTEGER_REASON;
        else if (f.type === 'integer') problem = integerInRange(v) ? null : INTEGER_REASON;
        else if (!Number.isFinite(v) || (Number.isInteger(v) && integerLiteral(source, f.name))) problem = FLOAT_REASON;
        else problem = v === 0 && underflowLiteral(source, f.name) ? FLOAT_RANGE_REASON : null;
        if (problem === null) text = String(v);
      } else if (typeof v !== 'string') {
        problem = f.type === 'string' ? SALE_TYPES.string.reason : textProblem(f, '');
      } else {
        problem = inspect && unstorableText(v) ? TEXT_REASON : textProblem(f, v);
        text = escaped ? copyText(v) : v;
      }
      if (problem !== null) this.problems.push([f.name, problem]);
      else data += (i === 0 ? '' : '\t') + (text ?? NULL);
    }
    if (this.checkCpfCnpj) this.checkDocument(sale.CustomerCPF_CNPJ);
    this.finish(record, line, data);
  }

  private finish(record: number, line: number, data: string): void {
    if (this.problems.length === 0) {
      this.accepted++;
      this.out.push(`${line}\t${record}\t${data}\t${NULL}\t${NULL}`);
      return;
    }
    this.rejected++;
    if (record <= ERROR_SAMPLE_RECORDS) this.sampleRejected++;
    for (const [field, reason] of this.problems) {
      this.errorCount++;
      if (this.errors.length < LISTED_ERRORS) this.errors.push({ line, record, field, reason });
      if (this.storedErrors >= this.maxStoredErrors) continue;
      this.storedErrors++;
      this.out.push(`${line}\t${record}\t${ERROR_DATA}\t${copyText(field)}\t${copyText(reason)}`);
    }
    this.problems = [];
  }
}

function textProblem(f: SaleField, text: string): string | null {
  switch (f.type) {
    case 'string':
      return null;
    case 'float':
      return floatTextProblem(text);
    case 'integer':
      return integerTextProblem(text);
    case 'orderDate':
      return orderDateProblem(text);
    case 'dateTime':
      return dateTimeProblem(text);
  }
}

/**
 * Whether the object's source writes `name` as a number without a decimal part (`10`,
 * `1e3`). JSON.parse reads `10` and `10.0` alike, so only the source can tell; a key
 * followed by a colon cannot occur inside a JSON string, so the match is the key itself.
 */
function integerLiteral(source: string, name: string): boolean {
  return INTEGER_LITERAL.get(name)!.test(source);
}

/** Whether `name`'s number in the source is not zero although it was read as 0 (`1.0e-400`): refused as in CSV. */
function underflowLiteral(source: string, name: string): boolean {
  const literal = NUMBER_LITERAL.get(name)!.exec(source)?.[1] ?? '';
  return /[1-9]/.test(literal.split(/[eE]/)[0]);
}

const NUMBER_LITERAL = new Map(SALE_FIELDS.map((f) => [f.name, new RegExp(`"${f.name}"\\s*:\\s*(-?[\\d.]+(?:[eE][+-]?\\d+)?)`)]));

const INTEGER_LITERAL = new Map(SALE_FIELDS.map((f) => [f.name, new RegExp(`"${f.name}"\\s*:\\s*-?\\d+(?:[eE][+-]?\\d+)?\\s*[,}]`)]));
