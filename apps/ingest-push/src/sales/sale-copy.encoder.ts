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
import { SaleKeySet } from './sale-key.set';

/** How many row errors a response (and the summary) lists; the rest are stored, up to a limit. */
export const LISTED_ERRORS = 100;

/** The first records, whose rejected share decides whether an upload is Sale data at all. */
export const ERROR_SAMPLE_RECORDS = 100_000;

const NULL = '\\N';
const DOCUMENT = SALE_FIELD_INDEX.get('CustomerCPF_CNPJ')!;
const ORDER_ID = SALE_FIELD_INDEX.get('OrderId')!;
const PRODUCT_ID = SALE_FIELD_INDEX.get('ProductId')!;
const ORDER_DATE = SALE_FIELD_INDEX.get('OrderDate')!;
export const CPF_CNPJ_REASON = 'must be a CPF (11 digits) or CNPJ (14 digits) with right check digits';
const COPY_SPECIAL = /[\\\t\n\r]/g;
const HAS_COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as PostgreSQL's COPY text format wants it. */
export function copyText(value: string): string {
  return HAS_COPY_SPECIAL.test(value) ? value.replace(COPY_SPECIAL, (c) => COPY_ESCAPES[c]) : value;
}

/** The COPY text of the records encoded since the last `take`: lines for `sales` first, then lines for the stage. */
export interface CopyText {
  sales: string;
  stage: string;
}

/** Whose lines an encoder writes: each line's first columns. */
export interface LineOwner {
  accountId: string;
  ingestionId: string;
}

/**
 * Turns Sale records into lines of COPY text. A valid record is one line (`account_id, ingestion_id,
 * <32 fields>`), the same for either of two tables:
 * - `sales` itself, from `intoSales` on, as long as no (OrderId, ProductId) may have come before in the
 *   file (SaleKeySet) and `stopIntoSales` was not called;
 * - the stage, from then on (or always, without `intoSales`): the merge applies the last occurrence of each key.
 * A rejected record gives one error per problem. The first `maxStoredErrors` are kept (`stored`) to be
 * written after the COPY in the same transaction; the rest are counted, so junk cannot grow the database
 * (nor memory) by more than that bound.
 */
export class SaleCopyEncoder {
  received = 0;
  accepted = 0;
  rejected = 0;
  errorCount = 0;
  /** Rejected records among the first ERROR_SAMPLE_RECORDS. */
  sampleRejected = 0;
  readonly errors: RowError[] = [];
  /** The errors to store (up to maxStoredErrors), in file order. */
  readonly stored: RowError[] = [];
  /** The UTC days (YYYY-MM-DD) of the lines given out for `sales`. */
  readonly salesDays = new Set<string>();
  private toSales: string[] = [];
  private toStage: string[] = [];
  private problems: Array<[string, string]> = [];
  /** While lines go straight into `sales`: their keys so far. */
  private keys: SaleKeySet | null = null;
  /** Each line's first columns: `account_id, ingestion_id`. */
  private readonly lineStart: string;

  constructor(
    owner: LineOwner,
    private readonly maxStoredErrors = Number.MAX_SAFE_INTEGER,
    private readonly checkCpfCnpj = false,
  ) {
    this.lineStart = `${owner.accountId}\t${owner.ingestionId}\t`;
  }

  /** From now on, valid lines are for `sales`, until a key may repeat or `stopIntoSales`. */
  intoSales(): void {
    this.keys = new SaleKeySet();
  }

  /** From now on, every valid line is for the stage. */
  stopIntoSales(): void {
    this.keys = null;
  }

  /** COPY text of the records encoded since the last call ('' for a table with none). */
  take(): CopyText {
    const text = { sales: lines(this.toSales), stage: lines(this.toStage) };
    this.toSales = [];
    this.toStage = [];
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
    this.finish(record, line, data, cells[ORDER_ID], cells[PRODUCT_ID], cells[ORDER_DATE]);
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
    this.finish(record, line, '', undefined, undefined, undefined);
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
    this.finish(record, line, data, sale.OrderId as string, sale.ProductId as string, sale.OrderDate as string);
  }

  /** Ends a record: its line when valid (then its key and date are strings), else its errors. */
  private finish(record: number, line: number, data: string, orderId: unknown, productId: unknown, orderDate: unknown): void {
    if (this.problems.length === 0) {
      this.accepted++;
      if (this.keys !== null && !this.keys.add(orderId as string, productId as string)) {
        this.salesDays.add((orderDate as string).slice(0, 10));
        this.toSales.push(this.lineStart + data);
      } else {
        this.keys = null;
        this.toStage.push(this.lineStart + data);
      }
      return;
    }
    this.rejected++;
    if (record <= ERROR_SAMPLE_RECORDS) this.sampleRejected++;
    for (const [field, reason] of this.problems) {
      this.errorCount++;
      const error = { line, record, field, reason };
      if (this.errors.length < LISTED_ERRORS) this.errors.push(error);
      if (this.stored.length < this.maxStoredErrors) this.stored.push(error);
    }
    this.problems = [];
  }
}

function lines(list: string[]): string {
  return list.length === 0 ? '' : list.join('\n') + '\n';
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
