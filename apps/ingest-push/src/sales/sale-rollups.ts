import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';
import type { SummaryGroup } from './sale-line.dto';

export const ROLLUPS = `${INGEST_PUSH_SCHEMA}.sales_daily_rollups`;
export const DIRTY_DAYS = `${INGEST_PUSH_SCHEMA}.sales_rollup_dirty_days`;

/** A grouping dimension of the daily rollups: `day` (no key) serves the `day` and `month` summaries. */
export type RollupDimension = 'day' | 'store' | 'product' | 'category' | 'brand' | 'state' | 'payment';

/** Each dimension's key: a column of `sales`. */
export const ROLLUP_KEYS: Readonly<Record<RollupDimension, string>> = {
  day: 'NULL::text',
  store: 'store_id',
  product: 'product_id',
  category: 'product_category',
  brand: 'product_brand',
  state: 'store_state',
  payment: 'payment_methods',
};

/**
 * A rollup row's period: a UTC day, or a block of a month's days, the sum of their day rows, dated its first day:
 * `dN` the N days from a 1st, 1+N, 1+2N… (the last one of a month shorter), `month` the whole month.
 */
export type RollupPeriod = 'day' | BlockPeriod;
export type BlockPeriod = 'd2' | 'd4' | 'd8' | 'd16' | 'month';

/** Each block period's length in days (a block ends at its month's end at the latest), longest first. */
export const BLOCKS: ReadonlyArray<readonly [BlockPeriod, number]> = [
  ['month', 32],
  ['d16', 16],
  ['d8', 8],
  ['d4', 4],
  ['d2', 2],
];

export const ROLLUP_DIMENSIONS = Object.keys(ROLLUP_KEYS) as RollupDimension[];

/**
 * What `dailyTotalsSql` reads of each line of `source` (`sales` and its WHERE): its UTC day, order, keys, quantity
 * (an empty ProductQuantity counts 1), revenue (ProductPrice × quantity, as numeric) and OrderDiscount.
 */
export function totalledLinesSql(source: string): string {
  return `SELECT (order_date AT TIME ZONE 'UTC')::date AS day, order_id, ${ROLLUP_DIMENSIONS.filter((d) => d !== 'day')
    .map((d) => ROLLUP_KEYS[d])
    .join(', ')}, coalesce(product_quantity, 1) AS quantity, product_price::numeric * coalesce(product_quantity, 1) AS revenue, order_discount
    FROM ${source}`;
}

export function dimensionOf(group: SummaryGroup): RollupDimension {
  return group === 'day' || group === 'month' ? 'day' : group;
}

/**
 * The totals per (UTC day, key) of `lines` (a relation of `totalledLinesSql`'s columns): a rollup's rows.
 * An order counts once per day and key it has lines in, with its OrderDiscount (the largest of those lines'):
 * so the totals of any set of days are the sums of its days' totals. Money is summed as numeric.
 * A product has at most one line per order (the primary key), so by product each line is its own order.
 */
export function dailyTotalsSql(dimension: RollupDimension, lines: string): string {
  const key = ROLLUP_KEYS[dimension];
  if (dimension === 'product') {
    return `SELECT day, ${key} AS key, count(*)::int AS orders, count(*)::int AS lines, sum(quantity)::bigint AS quantity, sum(revenue) AS revenue,
        sum(coalesce(order_discount, 0)::numeric) AS discount
      FROM ${lines} GROUP BY 1, 2`;
  }
  return `SELECT day, key, count(*)::int AS orders, sum(lines)::int AS lines, sum(quantity)::bigint AS quantity, sum(revenue) AS revenue, sum(discount) AS discount
    FROM (SELECT day, ${key} AS key, count(*) AS lines, sum(quantity) AS quantity, sum(revenue) AS revenue, coalesce(max(order_discount), 0)::numeric AS discount
      FROM ${lines} GROUP BY 1, 2, order_id) per_order
    GROUP BY day, key`;
}

/** The days [lo, hi) of a summary's whole days that hold rollups or dirty days, and the dirty ones (YYYY-MM-DD, UTC). */
export interface RollupSpan {
  lo: string;
  hi: string;
  /** Dirty days in [lo, hi). */
  dirty: readonly string[];
  /** Months (their 1st) with a dirty day or dirty blocks. */
  dirtyMonths: readonly string[];
  /** Months (their 1st) whose blocks were summed with their month row (`with_blocks`). */
  blockMonths: readonly string[];
}

/** Where a summary reads each part of its whole days from. */
export interface RollupPlan {
  /** Blocks (period, first day) read from block rows: in clean months, wholly inside the span. */
  blocks: Array<[BlockPeriod, string]>;
  /** Spans of days [a, b) read from day rows, except the dirty days. */
  days: Array<[string, string]>;
  /** Runs of dirty days [a, b), read from the lines. */
  dirty: Array<[string, string]>;
}

const DAY_MS = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** Appends [a, b) to `spans`, joined to the last one when they touch. */
function extend(spans: Array<[string, string]>, a: string, b: string): void {
  const last = spans[spans.length - 1];
  if (last !== undefined && last[1] === a) last[1] = b;
  else spans.push([a, b]);
}

/**
 * Splits a span into the blocks of clean months with blocks (when `blocks`: each part of a month from its longest blocks, so the
 * partial first or last month is at most 4 blocks and a day), other days (day rows) and dirty days (lines).
 */
export function planRollups(span: RollupSpan, blocks: boolean): RollupPlan {
  const plan: RollupPlan = { blocks: [], days: [], dirty: [] };
  const [dirtyMonths, blockMonths] = [new Set(span.dirtyMonths), new Set(span.blockMonths)];
  const [lo, hi] = [msOf(span.lo), msOf(span.hi)];
  const start = new Date(lo);
  for (let month = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), 1); month < hi;) {
    const at = new Date(month);
    const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
    // Days of the month, counted from its 1st: [i, end) of its `length`.
    const [length, end] = [(next - month) / DAY_MS, (Math.min(next, hi) - month) / DAY_MS];
    let i = (Math.max(month, lo) - month) / DAY_MS;
    const usable = blocks && blockMonths.has(dateOf(month)) && !dirtyMonths.has(dateOf(month));
    while (i < end) {
      const block = usable ? BLOCKS.find(([, n]) => i % n === 0 && Math.min(i + n, length) <= end) : undefined;
      const j = block === undefined ? (usable ? i + 1 : end) : Math.min(i + block[1], length);
      if (block === undefined) extend(plan.days, dateOf(month + i * DAY_MS), dateOf(month + j * DAY_MS));
      else plan.blocks.push([block[0], dateOf(month + i * DAY_MS)]);
      i = j;
    }
    month = next;
  }
  for (const day of span.dirty) extend(plan.dirty, day, dateOf(msOf(day) + DAY_MS));
  return plan;
}
