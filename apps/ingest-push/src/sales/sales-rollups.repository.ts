import { Injectable } from '@nestjs/common';
import { Sql } from '@app/database';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';
import { BLOCKS, DIRTY_DAYS, ROLLUP_DIMENSIONS, ROLLUPS, dailyTotalsSql, totalledLinesSql } from './sale-rollups';

/** A dirty row's period: `day` (its rollup), or `month` (the month's blocks). */
export type DirtyPeriod = 'day' | 'month';

/** One account's day (or month: its blocks) whose rollup is to be rebuilt. */
export interface DirtyDay {
  account_id: string;
  period: DirtyPeriod;
  /** YYYY-MM-DD (UTC); a month's 1st. */
  day: string;
}

/**
 * The lines of days once (a MATERIALIZED CTE `day_lines`; `within`: their order_date ranges), then every dimension's
 * totals of them into the day rollups, in index order (a day's rows share few pages).
 */
function rebuildDaysSql(within: string): string {
  return `
  WITH day_lines AS MATERIALIZED (${totalledLinesSql(`${INGEST_PUSH_SCHEMA}.sales WHERE account_id = $1 AND (${within})`)})
  INSERT INTO ${ROLLUPS} (account_id, dimension, period, day, key, orders, lines, quantity, revenue, discount)
  ${ROLLUP_DIMENSIONS.map((d) => `SELECT $1, '${d}', 'day', day, key, orders, lines, quantity, revenue, discount FROM (${dailyTotalsSql(d, 'day_lines')}) ${d}_totals`).join('\n  UNION ALL ')}
  ORDER BY 2, 4, 5`;
}

/**
 * A month's blocks ($2: its 1st; $4, $5: the block periods and their lengths): the sums of their days' rows, written
 * in index order, so that a block's rows share few pages (a summary reads them all); the month rows say so (`with_blocks`).
 */
const REBUILD_MONTH = `
  INSERT INTO ${ROLLUPS} (account_id, dimension, period, day, key, orders, lines, quantity, revenue, discount, with_blocks)
  SELECT $1, r.dimension, b.period, $2::date + (r.day - $2::date) / b.days * b.days, r.key, sum(r.orders), sum(r.lines), sum(r.quantity), sum(r.revenue), sum(r.discount), b.period = 'month'
  FROM ${ROLLUPS} r CROSS JOIN unnest($4::text[], $5::int[]) AS b(period, days)
  WHERE r.account_id = $1 AND r.dimension = ANY($3::text[]) AND r.period = 'day' AND r.day >= $2::date AND r.day < ($2::date + interval '1 month')::date
  GROUP BY r.dimension, b.period, 4, r.key ORDER BY r.dimension, b.period, 4, r.key`;

/** SQL of the rollups' upkeep: which days (months) are dirty, and rebuilding one. */
@Injectable()
export class SalesRollupsRepository {
  constructor(private readonly sql: Sql) {}

  /**
   * Marks dirty the months whose month rows were summed without their blocks (`with_blocks` false: before the blocks
   * existed, or by a replica of the version before) and are not dirty already; returns how many.
   */
  async markMonthsWithoutBlocks(): Promise<number> {
    const rows = await this.sql.rows(
      `INSERT INTO ${DIRTY_DAYS} (account_id, period, day)
       SELECT account_id, 'month', day FROM ${ROLLUPS} r WHERE dimension = 'day' AND period = 'month' AND NOT with_blocks
         AND NOT EXISTS (SELECT 1 FROM ${DIRTY_DAYS} d WHERE d.account_id = r.account_id AND d.period = 'month' AND d.day = r.day)
       RETURNING 1`,
    );
    return rows.length;
  }

  /**
   * Up to `limit` dirty days, those dirty the longest first, then dirty months (so a month is summed once its days are
   * done), of accounts with no upload running or ended in the last `quietMs`: a file sent in parts (the upload tool's)
   * re-dirties the same days with every part, so its days are summed once after the last part, not once per part.
   */
  dirtyDays(limit: number, quietMs: number): Promise<DirtyDay[]> {
    return this.sql.rows<DirtyDay>(
      `SELECT account_id, period, day::text AS day FROM ${DIRTY_DAYS} d
       WHERE NOT EXISTS (SELECT 1 FROM ${INGEST_PUSH_SCHEMA}.sales_ingestions i WHERE i.account_id = d.account_id
         AND (i.status = 'running' OR i.finished_at > clock_timestamp() - $2 * interval '1 millisecond'))
       GROUP BY account_id, period, day ORDER BY period = 'month', account_id, min(id) LIMIT $1`,
      [limit, quietMs],
    );
  }

  /**
   * Rebuilds the account's rollups of `days` (YYYY-MM-DD) from their lines, or the blocks of month `days[0]` from
   * its days' rollups, in one transaction; returns how many it rebuilt: not those another process is rebuilding (a
   * transaction-scoped advisory lock per day, so a transaction pooler is fine) or no longer dirty. The dirty rows it
   * deletes are those its first statement sees, whose writers had committed: what it reads next (a later snapshot,
   * READ COMMITTED) includes their writes. A writer committing meanwhile leaves its row for next time. A day's
   * rebuild leaves its month dirty.
   */
  rebuild(accountId: string, period: DirtyPeriod, days: string[]): Promise<number> {
    return this.sql.transaction(async (tx) => {
      const locked = await tx.rows<{ day: string }>(
        `SELECT day::text FROM unnest($2::date[]) AS day WHERE pg_try_advisory_xact_lock(hashtextextended('sales-rollup:' || $1 || ':' || $3 || ':' || day, 0))`,
        [accountId, period === 'month' ? days.slice(0, 1) : days, period],
      );
      const seen = await tx.rows<{ day: string }>(
        `DELETE FROM ${DIRTY_DAYS} WHERE account_id = $1 AND period = $2 AND day = ANY($3::date[]) RETURNING day::text`,
        [accountId, period, locked.map((r) => r.day)],
      );
      const rebuilt = [...new Set(seen.map((r) => r.day))].sort();
      if (rebuilt.length === 0) return 0;
      if (period === 'month') {
        const periods = BLOCKS.map(([p]) => p);
        await tx.rows(
          `DELETE FROM ${ROLLUPS} WHERE account_id = $1 AND dimension = ANY($2::text[]) AND period = ANY($3::text[]) AND day >= $4::date AND day < ($4::date + interval '1 month')::date`,
          [accountId, ROLLUP_DIMENSIONS, periods, rebuilt[0]],
        );
        await tx.rows(REBUILD_MONTH, [accountId, rebuilt[0], ROLLUP_DIMENSIONS, periods, BLOCKS.map(([, n]) => n)]);
        return 1;
      }
      await tx.rows(`DELETE FROM ${ROLLUPS} WHERE account_id = $1 AND dimension = ANY($2::text[]) AND period = 'day' AND day = ANY($3::date[])`, [
        accountId,
        ROLLUP_DIMENSIONS,
        rebuilt,
      ]);
      // Each day its own range of the (account_id, order_date) index.
      const params: unknown[] = [accountId];
      const within = rebuilt.map((day) => {
        params.push(day);
        return `(order_date >= $${params.length}::date::timestamp AT TIME ZONE 'UTC' AND order_date < ($${params.length}::date + 1)::timestamp AT TIME ZONE 'UTC')`;
      });
      await tx.rows(rebuildDaysSql(within.join(' OR ')), params);
      await tx.rows(
        `INSERT INTO ${DIRTY_DAYS} (account_id, period, day) SELECT DISTINCT $1::uuid, 'month', date_trunc('month', day)::date FROM unnest($2::date[]) AS day`,
        [accountId, rebuilt],
      );
      return rebuilt.length;
    });
  }
}
