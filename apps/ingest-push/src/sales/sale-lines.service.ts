import { Injectable } from '@nestjs/common';
import { SALE_FIELDS, SALE_FIELD_NAMES } from './sale-fields';
import { decodeSaleCursor, encodeSaleCursor } from './sale-cursor';
import {
  DEFAULT_LINES_PER_PAGE,
  salesInstant,
  type SaleFilterQueryDto,
  type SaleLine,
  type SaleLinePage,
  type SaleLineQueryDto,
  type SalesSummary,
  type SalesSummaryQueryDto,
} from './sale-line.dto';
import { SaleLinesRepository, type SaleFilter, type StoredLine } from './sale-lines.repository';
import { documentDigits } from './cpf-cnpj';

/** Lines per query of a CSV export. */
const EXPORT_BATCH = 5000;
const SUMMARY_ROWS = 100;

/**
 * Reads of the account's sale lines: a keyset page (JSON), a streamed CSV export in the upload's own format
 * (exported and uploaded again, it changes nothing), and summaries.
 */
@Injectable()
export class SaleLinesService {
  constructor(private readonly repository: SaleLinesRepository) {}

  async page(accountId: string, query: SaleLineQueryDto): Promise<SaleLinePage> {
    const limit = query.limit === undefined ? DEFAULT_LINES_PER_PAGE : Number(query.limit);
    const after = query.cursor === undefined ? null : decodeSaleCursor(query.cursor);
    const rows = await this.repository.lines(accountId, filterOf(query), after, limit + 1);
    const more = rows.length > limit;
    const page = more ? rows.slice(0, limit) : rows;
    return { data: page.map(saleLine), next_cursor: more ? cursorAfter(page[page.length - 1]) : null };
  }

  /** The lines as CSV (header first), a batch at a time, for streaming out. */
  async *csv(accountId: string, query: SaleLineQueryDto): AsyncGenerator<string> {
    const filter = filterOf(query);
    let after = query.cursor === undefined ? null : decodeSaleCursor(query.cursor);
    yield `${SALE_FIELD_NAMES.join(';')}\n`;
    for (;;) {
      const rows = await this.repository.lines(accountId, filter, after, EXPORT_BATCH);
      if (rows.length === 0) return;
      yield rows.map(csvLine).join('');
      if (rows.length < EXPORT_BATCH) return;
      after = decodeSaleCursor(cursorAfter(rows[rows.length - 1]));
    }
  }

  async summary(accountId: string, query: SalesSummaryQueryDto): Promise<SalesSummary> {
    const filter = filterOf(query);
    const limit = query.limit === undefined ? SUMMARY_ROWS : Number(query.limit);
    const data = await this.repository.summary(accountId, filter, query.group_by, limit);
    return { group_by: query.group_by, from: filter.from ?? null, to: filter.to ?? null, data };
  }
}

/** The filters of a checked query, as the repository reads them. */
export function filterOf(query: SaleFilterQueryDto): SaleFilter {
  return {
    from: query.from === undefined ? undefined : salesInstant(query.from),
    to: query.to === undefined ? undefined : salesInstant(query.to),
    store: query.store,
    product: query.product,
    order: query.order,
    status: query.status,
    customerDigits: query.customer === undefined ? undefined : documentDigits(query.customer),
    ingestion: query.ingestion,
  };
}

function cursorAfter(row: StoredLine): string {
  return encodeSaleCursor({ orderDate: row.cursor_date, orderId: row.c0!, productId: row.c7! });
}

/** A stored line as the JSON answer has it: numbers as numbers, the rest as text, empty fields null. */
export function saleLine(row: StoredLine): SaleLine {
  const line: SaleLine = {};
  for (let i = 0; i < SALE_FIELDS.length; i++) {
    const text = row[`c${i}`];
    const type = SALE_FIELDS[i].type;
    line[SALE_FIELDS[i].name] = text === null ? null : type === 'float' || type === 'integer' ? Number(text) : text;
  }
  return line;
}

/** A stored line as a CSV record of the upload's format: floats keep a decimal part (`10.0`), empty fields are empty cells. */
function csvLine(row: StoredLine): string {
  let out = '';
  for (let i = 0; i < SALE_FIELDS.length; i++) {
    const text = row[`c${i}`];
    if (i > 0) out += ';';
    if (text === null) continue;
    out += SALE_FIELDS[i].type === 'float' ? decimalFloat(text) : csvCell(text);
  }
  return out + '\n';
}

/** PostgreSQL's shortest float text with the decimal part the upload requires: 10 → 10.0, 1e+21 → 1.0e+21. */
export function decimalFloat(text: string): string {
  if (text.includes('.')) return text;
  const e = text.search(/e/i);
  return e === -1 ? `${text}.0` : `${text.slice(0, e)}.0${text.slice(e)}`;
}

function csvCell(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
