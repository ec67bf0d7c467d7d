import { Injectable } from '@nestjs/common';
import { Sql, type SqlRunner } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';
import { documentDigitsSql } from './cpf-cnpj';
import { customerSubjectSql, type SubjectKey } from './customer-subject';
import { SALE_FIELDS, type SaleField } from './sale-fields';
import { mergeLock } from './sales.repository';
import type { SaleCursor } from './sale-cursor';
import type { SummaryGroup } from './sale-line.dto';
import { BLOCKS, DIRTY_DAYS, ROLLUPS, dailyTotalsSql, dimensionOf, planRollups, totalledLinesSql } from './sale-rollups';

const SALES = `${INGEST_PUSH_SCHEMA}.sales`;
const DIGITS = documentDigitsSql('customer_cpf_cnpj');
/** What an erased line holds instead of its customer's CPF/CNPJ, phone and e-mail (required fields, so not null; no digit in it). */
export const ERASED = '[erased]';

/** The filters of a read, already checked (digits of the customer, instants PostgreSQL reads as written). */
export interface SaleFilter {
  from?: string;
  to?: string;
  store?: string;
  product?: string;
  order?: string;
  status?: string;
  customerDigits?: string;
  ingestion?: string;
}

/** A stored line: each Sale field as text (`c0`… in SALE_FIELDS order, null when empty), and its exact OrderDate for the cursor. */
export type StoredLine = Record<string, string | null> & { cursor_date: string };

/** The totals of one group as the summary answers them (money as exact decimal text). */
export interface SummaryRow {
  key: string | null;
  orders: number;
  lines: number;
  quantity: number;
  revenue: string;
  discount: string;
  average_ticket: string;
}

/** A stored row error that names the customer (its `field`: an unknown JSON key). */
export interface CustomerErrorRow {
  ingestion_id: string;
  line: number;
  record: number;
  field: string;
  reason: string;
}

const INSTANT_US = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

function textOf(f: SaleField): string {
  if (f.type === 'orderDate') return `to_char(${f.column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  if (f.type === 'dateTime') return `to_char(${f.column} AT TIME ZONE 'UTC', ${INSTANT_US})`;
  return `${f.column}::text`;
}

/** Every field as text: floats in their shortest exact form, date-times in UTC. */
const LINE_COLUMNS = `${SALE_FIELDS.map((f, i) => `${textOf(f)} AS c${i}`).join(', ')}, to_char(order_date AT TIME ZONE 'UTC', ${INSTANT_US}) AS cursor_date`;

const NEWEST_FIRST = 'ORDER BY order_date DESC, order_id DESC, product_id DESC';

/** How a summary names its groups: day and month from the rollup's day, the others by key. */
const GROUP_LABELS: Readonly<Record<SummaryGroup, string>> = {
  day: `to_char(day, 'YYYY-MM-DD')`,
  month: `to_char(day, 'YYYY-MM')`,
  store: 'key',
  product: 'key',
  category: 'key',
  brand: 'key',
  state: 'key',
  payment: 'key',
};

/** A summary's whole UTC days [first, end) (`from` rounded up, `to` down; infinite when open) and what its rollups hold there. */
interface SummarySpan {
  first: string;
  end: string;
  /** Whether `from` (`to`) falls on a midnight UTC: no partial first (last) day. */
  from_whole: boolean;
  to_whole: boolean;
  /** [first, end) narrowed to the account's days with a rollup or a dirty row; null when none. */
  lo: string | null;
  hi: string | null;
  dirty: string[];
  dirty_months: string[];
  block_months: string[];
}

/** A summary's first statement: the span of [$2, $3), the dirty days and months of the account ($1) in it, and its months with blocks. */
const SUMMARY_SPAN = `
  SELECT first::text, "end"::text, from_whole, to_whole, lo::text, hi::text,
    ARRAY(SELECT DISTINCT day::text FROM ${DIRTY_DAYS} WHERE account_id = $1 AND period = 'day' AND day >= lo AND day < hi ORDER BY 1) AS dirty,
    ARRAY(SELECT DISTINCT date_trunc('month', day)::date::text FROM ${DIRTY_DAYS} WHERE account_id = $1 AND day >= date_trunc('month', lo)::date AND day < hi ORDER BY 1) AS dirty_months,
    ARRAY(SELECT day::text FROM ${ROLLUPS} WHERE account_id = $1 AND dimension = 'day' AND period = 'month' AND day >= date_trunc('month', lo)::date AND day < hi AND with_blocks ORDER BY 1) AS block_months
  FROM (
    SELECT first, "end", from_whole, to_whole, CASE WHEN coalesce(r.low, d.low) IS NOT NULL THEN greatest(first, least(r.low, d.low)) END AS lo,
      least("end", greatest(r.high, d.high) + 1) AS hi
    FROM (
      SELECT first, "end", coalesce($2::timestamptz = first::timestamp AT TIME ZONE 'UTC', true) AS from_whole,
        coalesce($3::timestamptz = "end"::timestamp AT TIME ZONE 'UTC', true) AS to_whole
      FROM (SELECT
        CASE WHEN $2::timestamptz IS NULL THEN '-infinity'::date ELSE ($2::timestamptz AT TIME ZONE 'UTC' + interval '1 day' - interval '1 microsecond')::date END AS first,
        CASE WHEN $3::timestamptz IS NULL THEN 'infinity'::date ELSE ($3::timestamptz AT TIME ZONE 'UTC')::date END AS "end") bounds) b,
    LATERAL (SELECT min(day) AS low, max(day) AS high FROM ${ROLLUPS} WHERE account_id = $1 AND dimension = 'day' AND period = 'day') r,
    LATERAL (SELECT min(day) AS low, max(day) AS high FROM ${DIRTY_DAYS} WHERE account_id = $1 AND period = 'day') d) span`;

const midnight = (day: string) => `${day}T00:00:00Z`;

/** The WHERE clause of an account's lines under `filter`, its parameters appended to `params`. */
function whereOf(accountId: string, filter: SaleFilter, params: unknown[]): string {
  params.push(accountId);
  const conditions = [`account_id = $${params.length}`];
  const add = (condition: (p: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filter.from !== undefined) add((p) => `order_date >= ${p}::timestamptz`, filter.from);
  if (filter.to !== undefined) add((p) => `order_date < ${p}::timestamptz`, filter.to);
  if (filter.store !== undefined) add((p) => `store_id = ${p}`, filter.store);
  if (filter.product !== undefined) add((p) => `product_id = ${p}`, filter.product);
  if (filter.order !== undefined) add((p) => `order_id = ${p}`, filter.order);
  if (filter.status !== undefined) add((p) => `order_status = ${p}`, filter.status);
  if (filter.customerDigits !== undefined) add((p) => `${DIGITS} = ${p}`, filter.customerDigits);
  if (filter.ingestion !== undefined) add((p) => `ingestion_id = ${p}::uuid`, filter.ingestion);
  return conditions.join(' AND ');
}

/** SQL of the sales reads (lines, summaries) and of a customer's data and its erasure. */
@Injectable()
export class SaleLinesRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Up to `limit` lines under `filter`, newest OrderDate first (then OrderId, ProductId descending), after `after`.
   * Keyset paging over the primary key's columns: a line a concurrent upload adds never shifts a page.
   */
  lines(accountId: string, filter: SaleFilter, after: SaleCursor | null, limit: number): Promise<StoredLine[]> {
    const params: unknown[] = [];
    let where = whereOf(accountId, filter, params);
    if (after !== null) {
      params.push(after.orderDate, after.orderId, after.productId);
      const [d, o, p] = [params.length - 2, params.length - 1, params.length];
      // The first condition lets the (account_id, order_date) index start at the cursor; the row comparison breaks ties.
      where += ` AND order_date <= $${d}::timestamptz AND (order_date, order_id, product_id) < ($${d}::timestamptz, $${o}, $${p})`;
    }
    params.push(limit);
    return this.sql.rows<StoredLine>(`SELECT ${LINE_COLUMNS} FROM ${SALES} WHERE ${where} ${NEWEST_FIRST} LIMIT $${params.length}`, params);
  }

  /**
   * Totals per group under `filter` (see dailyTotalsSql: an order counts once per day and group it has lines in),
   * money summed as numeric; time groups in time order, the others by revenue. Filtered by time only, the whole UTC
   * days of the range come from the rollups (the days of a clean month from its longest blocks, unless by day; other clean days from theirs),
   * dirty days from the lines, as do the range's partial first and last days; the reads share one snapshot, so the
   * answer is the lines' own. With any other filter, everything comes from the lines.
   */
  summary(accountId: string, filter: SaleFilter, group: SummaryGroup, limit: number): Promise<SummaryRow[]> {
    const dimension = dimensionOf(group);
    const timeOnly = Object.entries(filter).every(([name, value]) => value === undefined || name === 'from' || name === 'to');
    return this.sql.transaction(
      async (tx) => {
        const params: unknown[] = [];
        const param = (value: unknown) => {
          params.push(value);
          return `$${params.length}`;
        };
        const parts: string[] = [];
        let single = false;
        const span = timeOnly ? await tx.one<SummarySpan>(SUMMARY_SPAN, [accountId, filter.from ?? null, filter.to ?? null]) : null;
        if (span === null || span.lo === null || span.hi === null || span.lo >= span.hi) {
          parts.push(dailyTotalsSql(dimension, `(${totalledLinesSql(`${SALES} WHERE ${whereOf(accountId, filter, params)}`)}) totalled`));
        } else {
          const plan = planRollups(
            { lo: span.lo, hi: span.hi, dirty: span.dirty, dirtyMonths: span.dirty_months, blockMonths: span.block_months },
            group !== 'day',
          );
          const [account, dim] = [param(accountId), param(dimension)];
          const rolled: string[] = [];
          for (const [period] of BLOCKS) {
            const days = plan.blocks.filter(([p]) => p === period).map(([, day]) => day);
            if (days.length > 0) rolled.push(`period = '${period}' AND day = ANY(${param(days)}::date[])`);
          }
          if (plan.days.length > 0) {
            const clean = `day <> ALL(${param(span.dirty)}::date[])`;
            for (const [a, b] of plan.days) rolled.push(`period = 'day' AND day >= ${param(a)}::date AND day < ${param(b)}::date AND ${clean}`);
          }
          if (rolled.length > 0) {
            parts.push(
              `SELECT day, key, orders, lines, quantity, revenue, discount FROM ${ROLLUPS}
               WHERE account_id = ${account} AND dimension = ${dim} AND (${rolled.map((c) => `(${c})`).join(' OR ')})`,
            );
          }
          // From the lines: the partial days at either end, and the dirty days; each range its own index condition.
          const ranges = plan.dirty.map(([a, b]) => [midnight(a), midnight(b)]);
          if (!span.from_whole) ranges.push([filter.from!, midnight(span.first)]);
          if (!span.to_whole) ranges.push([midnight(span.end), filter.to!]);
          if (ranges.length > 0) {
            const within = ranges.map(([lo, hi]) => `order_date >= ${param(lo)}::timestamptz AND order_date < ${param(hi)}::timestamptz`);
            parts.push(dailyTotalsSql(dimension, `(${totalledLinesSql(`${SALES} WHERE account_id = ${account} AND (${within.join(' OR ')})`)}) totalled`));
          }
          // One block alone (a whole clean month, say) has one row per group: nothing to add up.
          single = plan.blocks.length === 1 && plan.days.length === 0 && ranges.length === 0;
        }
        if (parts.length === 0) return [];
        const order = (t: string) => (group === 'day' || group === 'month' ? `${t}key` : `${t}revenue DESC, ${t}key NULLS LAST`);
        const totals = single
          ? `SELECT ${GROUP_LABELS[group]} AS key, orders, lines, quantity, revenue, discount FROM (${parts[0]}) totals`
          : `SELECT ${GROUP_LABELS[group]} AS key, sum(orders) AS orders, sum(lines) AS lines, sum(quantity) AS quantity, sum(revenue) AS revenue,
               sum(discount) AS discount FROM (${parts.join(' UNION ALL ')}) totals GROUP BY 1`;
        // The top groups first, then their answer's text (rounding and formatting only `limit` rows).
        return tx.rows<SummaryRow>(
          `SELECT key, orders::int AS orders, lines::int AS lines, quantity::float8 AS quantity, round(revenue, 2)::text AS revenue,
             round(discount, 2)::text AS discount, round(revenue / orders, 2)::text AS average_ticket
           FROM (${totals} ORDER BY ${order('')} LIMIT ${param(limit)}) top ORDER BY ${order('top.')}`,
          params,
        );
      },
      { snapshot: true },
    );
  }

  /** Every line of the customer, newest first. */
  customerLines(accountId: string, digits: string): Promise<StoredLine[]> {
    return this.sql.rows<StoredLine>(`SELECT ${LINE_COLUMNS} FROM ${SALES} WHERE account_id = $1 AND ${DIGITS} = $2 ${NEWEST_FIRST}`, [accountId, digits]);
  }

  /** The account's stored row errors that name the customer. */
  customerErrors(accountId: string, digits: string): Promise<CustomerErrorRow[]> {
    return this.sql.rows<CustomerErrorRow>(
      `SELECT e.ingestion_id, e.line, e.record, e.field, e.reason FROM ${INGEST_PUSH_SCHEMA}.sales_ingestion_errors e
       JOIN ${INGEST_PUSH_SCHEMA}.sales_ingestions i ON i.id = e.ingestion_id
       WHERE i.account_id = $1 AND ${documentDigitsSql('e.field')} = $2 ORDER BY e.id`,
      [accountId, digits],
    );
  }

  /**
   * Erases the customer on `tx`, in the account's merge turn (so no upload of the account is half merged): the
   * personal fields of every line (amounts stay), the row errors that name them, and records the erasure under
   * `subject` (a keyed hash, no personal data). Returns the counts.
   */
  async eraseCustomer(
    tx: SqlRunner,
    accountId: string,
    digits: string,
    erasure: { subject: string; keyId: string; apiKeyId: string },
  ): Promise<{ lines: number; errors: number }> {
    await tx.rows('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [mergeLock(accountId)]);
    const lines = await tx.rows(
      `UPDATE ${SALES} SET customer_name = NULL, customer_cpf_cnpj = $3, customer_phone = $3, customer_email = $3, customer_birth = NULL,
           customer_gender = NULL, client_id = NULL, updated_at = now()
         WHERE account_id = $1 AND ${DIGITS} = $2 RETURNING 1`,
      [accountId, digits, ERASED],
    );
    const errors = await tx.rows(
      `DELETE FROM ${INGEST_PUSH_SCHEMA}.sales_ingestion_errors e USING ${INGEST_PUSH_SCHEMA}.sales_ingestions i
         WHERE i.id = e.ingestion_id AND i.account_id = $1 AND ${documentDigitsSql('e.field')} = $2 RETURNING 1`,
      [accountId, digits],
    );
    await tx.rows(
      `INSERT INTO ${INGEST_PUSH_SCHEMA}.sales_customer_erasures (account_id, subject, key_id, api_key_id, lines, errors) VALUES ($1, $2, $3, $4, $5, $6)`,
      [accountId, erasure.subject, erasure.keyId, erasure.apiKeyId, lines.length, errors.length],
    );
    return { lines: lines.length, errors: errors.length };
  }

  /** When the account erased the customer before (keyed hashes under any of `keys`), newest first. */
  async erasuresOf(accountId: string, keys: SubjectKey[], digits: string): Promise<string[]> {
    if (keys.length === 0) return [];
    const rows = await this.sql.rows<{ erased_at: string }>(
      `SELECT to_char(e.erased_at AT TIME ZONE 'UTC', ${INSTANT_US}) AS erased_at FROM ${INGEST_PUSH_SCHEMA}.sales_customer_erasures e
       JOIN unnest($2::text[], $3::bytea[], $4::bytea[]) AS k(id, ipad, opad) ON k.id = e.key_id
       WHERE e.account_id = $1 AND e.subject = ${customerSubjectSql('$5::text', 'k.ipad', 'k.opad')} ORDER BY e.erased_at DESC`,
      [accountId, keys.map((k) => k.id), keys.map((k) => k.ipad), keys.map((k) => k.opad), digits],
    );
    return rows.map((r) => r.erased_at);
  }
}
