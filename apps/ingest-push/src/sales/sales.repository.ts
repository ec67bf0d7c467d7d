import { Injectable } from '@nestjs/common';
import { DAY_SECONDS, isoTimestamp, Pruner, Sql, type CopySource, type SqlClient, type SqlRunner } from '@app/database';
import { hourOf } from '@app/pagination';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';
import { SalesConfig } from './sales.config';
import { SALE_COLUMNS } from './sale-fields';
import { DIRTY_DAYS } from './sale-rollups';
import { documentDigitsSql } from './cpf-cnpj';
import { customerSubjectSql, type SubjectKey } from './customer-subject';
import type { IngestionListItem, RowError } from './ingestion.dto';
import type { IngestionStage, IngestionStatus } from './sales-ingestion.entity';

const STAGE = 'sales_stage';
const SALES = `${INGEST_PUSH_SCHEMA}.sales`;
const DATA = SALE_COLUMNS.join(', ');
/** PostgreSQL's "duplicate key value violates unique constraint" (a plain INSERT) and "ON CONFLICT DO UPDATE command cannot affect row a second time". */
const UNIQUE_VIOLATION = '23505';
const CARDINALITY_VIOLATION = '21000';
const UPDATE_SET = SALE_COLUMNS.filter((c) => c !== 'order_id' && c !== 'product_id')
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

export interface IngestionCounts {
  bytes: number;
  received: number;
  rejected: number;
  errorCount: number;
  errorsNotStored: number;
}

/** What a running ingestion's heartbeat writes. */
export interface IngestionBeat {
  id: string;
  stage: IngestionStage;
  counts: IngestionCounts;
}

/** How a run that did not complete ended. */
export type IngestionEnd = 'failed' | 'cancelled';

export interface MergeResult {
  inserted: number;
  updated: number;
  /** Customers of the upload whose personal data the account had erased before. */
  erasedCustomers: number;
}

/** An ingestion as its DTO has it (IngestionListItem). */
const INGESTION_COLUMNS = `id AS ingestion_id, status, stage, format, bytes::float8 AS bytes, received, inserted, updated, rejected, error_count, errors_not_stored, erased_customers, failure,
  ${isoTimestamp('started_at')}, ${isoTimestamp('finished_at')},
  (extract(epoch FROM coalesce(finished_at, clock_timestamp()) - started_at) * 1000)::int AS duration_ms`;

/** The advisory lock an account's writers of sales lines take turns with, until commit. */
export const mergeLock = (accountId: string) => `sales-merge:${accountId}`;

/** SQL of the sales context: ingestions, their staging COPY and merge, their errors. */
@Injectable()
export class SalesRepository {
  constructor(
    private readonly sql: Sql,
    config: SalesConfig,
    pruner: Pruner,
  ) {
    // Finished runs INGEST_RETENTION_DAYS after they finished: their errors first, then the (error-free) run.
    const keepSeconds = () => config.INGEST_RETENTION_DAYS * DAY_SECONDS;
    const finished = `status <> 'running' AND finished_at < cutoff`;
    pruner.register(
      {
        table: `${INGEST_PUSH_SCHEMA}.sales_ingestion_errors`,
        expired: `ingestion_id IN (SELECT id FROM ${INGEST_PUSH_SCHEMA}.sales_ingestions WHERE ${finished})`,
        keepSeconds,
      },
      {
        table: `${INGEST_PUSH_SCHEMA}.sales_ingestions`,
        expired: `${finished} AND NOT EXISTS (SELECT 1 FROM ${INGEST_PUSH_SCHEMA}.sales_ingestion_errors e WHERE e.ingestion_id = sales_ingestions.id)`,
        keepSeconds,
      },
    );
  }

  /**
   * A new running ingestion, under `id` when the client chose one (X-Ingestion-Id); null
   * when that id is taken already.
   */
  async createIngestion(accountId: string, apiKeyId: string, format: string, id: string | null): Promise<string | null> {
    const row = await this.sql.one<{ id: string }>(
      `INSERT INTO ${INGEST_PUSH_SCHEMA}.sales_ingestions (id, account_id, api_key_id, format, stage) VALUES (coalesce($4::uuid, gen_random_uuid()), $1, $2, $3, 'receiving')
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [accountId, apiKeyId, format, id],
    );
    return row?.id ?? null;
  }

  /** The status of ingestion `id` if it is the account's; null if it is another's (or none). */
  async statusOf(accountId: string, id: string): Promise<IngestionStatus | null> {
    const row = await this.sql.one<{ status: IngestionStatus }>(`SELECT status FROM ${INGEST_PUSH_SCHEMA}.sales_ingestions WHERE id = $1 AND account_id = $2`, [
      id,
      accountId,
    ]);
    return row?.status ?? null;
  }

  /**
   * One heartbeat for every ingestion this process runs: progress, stage and the time, in one
   * statement (visible to GET while each upload's own transaction is open). Returns the ids
   * whose cancellation was requested.
   */
  async beat(beats: IngestionBeat[]): Promise<string[]> {
    const rows = await this.sql.rows<{ id: string; cancel_requested: boolean }>(
      `UPDATE ${INGEST_PUSH_SCHEMA}.sales_ingestions i SET heartbeat_at = clock_timestamp(), stage = u.stage, bytes = u.bytes, received = u.received,
         rejected = u.rejected, error_count = u.error_count, errors_not_stored = u.errors_not_stored
       FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::int[], $5::int[], $6::int[], $7::int[])
         AS u(id, stage, bytes, received, rejected, error_count, errors_not_stored)
       WHERE i.id = u.id AND i.status = 'running'
       RETURNING i.id, i.cancel_requested`,
      [
        beats.map((b) => b.id),
        beats.map((b) => b.stage),
        beats.map((b) => b.counts.bytes),
        beats.map((b) => b.counts.received),
        beats.map((b) => b.counts.rejected),
        beats.map((b) => b.counts.errorCount),
        beats.map((b) => b.counts.errorsNotStored),
      ],
    );
    return rows.filter((r) => r.cancel_requested).map((r) => r.id);
  }

  /** Asks (on `tx`) the process running ingestion `id` to cancel it; false when it is not running (or not the account's). */
  async requestCancel(tx: SqlRunner, accountId: string, id: string): Promise<boolean> {
    const rows = await tx.rows(
      `UPDATE ${INGEST_PUSH_SCHEMA}.sales_ingestions SET cancel_requested = true WHERE id = $1 AND account_id = $2 AND status = 'running' RETURNING id`,
      [id, accountId],
    );
    return rows.length > 0;
  }

  /** Running ingestions whose process stopped heartbeating `staleSeconds` ago become failed; returns their ids. */
  async closeStale(staleSeconds: number, failure: string): Promise<string[]> {
    const rows = await this.sql.rows<{ id: string }>(
      `UPDATE ${INGEST_PUSH_SCHEMA}.sales_ingestions SET status = 'failed', stage = NULL, failure = $2, inserted = 0, updated = 0, finished_at = clock_timestamp()
       WHERE status = 'running' AND heartbeat_at < clock_timestamp() - make_interval(secs => $1) RETURNING id`,
      [staleSeconds, failure],
    );
    return rows.map((r) => r.id);
  }

  async markEnded(id: string, status: IngestionEnd, failure: string, counts: IngestionCounts): Promise<void> {
    await this.sql.rows(
      `UPDATE ${INGEST_PUSH_SCHEMA}.sales_ingestions SET status = $2, stage = NULL, failure = $3, bytes = $4, received = $5, rejected = $6, error_count = $7,
         errors_not_stored = $8, inserted = 0, updated = 0, finished_at = clock_timestamp() WHERE id = $1`,
      [id, status, failure, counts.bytes, counts.received, counts.rejected, counts.errorCount, counts.errorsNotStored],
    );
  }

  /**
   * Takes the account's turn to write sales lines (the merge lock, kept until commit) if it is free, so no line
   * of another upload can appear meanwhile, and tells whether the account holds lines then. Unless `withLines`,
   * only into an account without lines; nor into one with lines and erased customers: a customer uploaded again
   * is found among the upload's lines, which are the stage's, or the account's lines of this ingestion (a scan of
   * the account). Null when the upload does not take it: it stages, and waits for the turn at its merge.
   */
  async takeTurn(tx: SqlClient, accountId: string, withLines: boolean): Promise<{ empty: boolean } | null> {
    const look = async () =>
      (await tx.one<{ empty: boolean; erasures: boolean }>(
        `SELECT NOT EXISTS (SELECT 1 FROM ${SALES} WHERE account_id = $1) AS empty,
           EXISTS (SELECT 1 FROM ${INGEST_PUSH_SCHEMA}.sales_customer_erasures WHERE account_id = $1) AS erasures`,
        [accountId],
      ))!;
    const may = (account: { empty: boolean; erasures: boolean }) => account.empty || (withLines && !account.erasures);
    if (!may(await look())) return null;
    const turn = await tx.one<{ taken: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS taken', [mergeLock(accountId)]);
    if (!turn!.taken) return null;
    // Looked at again with the turn taken: a merge or an erasure may have committed before.
    const account = await look();
    return may(account) ? { empty: account.empty } : null;
  }

  /** COPY of lines straight into `sales` (`account_id, ingestion_id, <fields>`); returns how many. */
  copyIntoSales(tx: SqlClient, source: CopySource, signal: AbortSignal): Promise<number> {
    return tx.copyFrom(`COPY ${SALES} (account_id, ingestion_id, ${DATA}) FROM STDIN`, source, { signal });
  }

  /**
   * The same COPY under a savepoint: null, with nothing of it kept, when a line's key is stored already
   * (a unique violation); the transaction goes on.
   */
  async tryCopyIntoSales(tx: SqlClient, source: CopySource, signal: AbortSignal): Promise<number | null> {
    await tx.rows('SAVEPOINT straight');
    try {
      const copied = await this.copyIntoSales(tx, source, signal);
      await tx.rows('RELEASE SAVEPOINT straight');
      return copied;
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      await tx.rows('ROLLBACK TO SAVEPOINT straight');
      return null;
    }
  }

  /**
   * A staging table for the upload's lines that need the merge (the COPY lines of `sales`, numbered in file order by
   * `record`); it lives as long as the transaction.
   */
  async createStage(tx: SqlClient): Promise<void> {
    await tx.rows(`CREATE TEMP TABLE ${STAGE} ON COMMIT DROP AS SELECT account_id, ingestion_id, ${DATA} FROM ${SALES} WITH NO DATA`);
    await tx.rows(`ALTER TABLE ${STAGE} ADD COLUMN record bigint GENERATED ALWAYS AS IDENTITY`);
  }

  copyIntoStage(tx: SqlClient, source: CopySource, signal: AbortSignal): Promise<number> {
    return tx.copyFrom(`COPY ${STAGE} (account_id, ingestion_id, ${DATA}) FROM STDIN`, source, { signal });
  }

  /**
   * Merges the staged lines into `sales` and returns how many were new. A sale line seen before (same
   * account, OrderId, ProductId) is updated; when the file itself repeats a line, its last occurrence wins.
   * Merges of one account take turns (an advisory lock until commit): two uploads that touch
   * the same lines in different orders would otherwise deadlock, and while the turn is held
   * no one else writes the account's lines. So into an account without lines the merge is a
   * plain INSERT (no speculative insertion per row); otherwise one `INSERT … ON CONFLICT`.
   * A file that repeats a line (a unique violation, or "cannot affect row a second time") is
   * merged again from its last occurrences only, under a savepoint.
   * The same statement records the days it changed as dirty (one row per day), for the rollup refresher.
   */
  async mergeStage(tx: SqlClient, ingestionId: string, accountId: string): Promise<number> {
    await tx.rows('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [mergeLock(accountId)]);
    const existing = (await tx.one<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${INGEST_PUSH_SCHEMA}.sales WHERE account_id = $1) AS found`, [
      accountId,
    ]))!.found;
    const upsert = existing
      ? ` ON CONFLICT (account_id, order_id, product_id) DO UPDATE SET ${UPDATE_SET}, ingestion_id = excluded.ingestion_id, updated_at = now()`
      : '';
    // The days the summary rollups must rebuild: those of the merged lines, and those a stored line moves away from
    // (read before the merge: every part of one statement sees the same snapshot).
    const movedFrom = existing
      ? `UNION SELECT (s.order_date AT TIME ZONE 'UTC')::date FROM ${STAGE} st JOIN ${INGEST_PUSH_SCHEMA}.sales s
           ON s.account_id = $1 AND s.order_id = st.order_id AND s.product_id = st.product_id
         WHERE (s.order_date AT TIME ZONE 'UTC')::date <> (st.order_date AT TIME ZONE 'UTC')::date`
      : '';
    const merge = async (source: string): Promise<number> =>
      (await tx.one<{ inserted: number }>(
        `WITH merged AS (
           INSERT INTO ${INGEST_PUSH_SCHEMA}.sales (account_id, ingestion_id, ${DATA}) SELECT $1, $2, ${DATA} FROM ${source}${upsert}
           RETURNING (xmax = 0) AS inserted, order_date),
         dirty AS (
           INSERT INTO ${DIRTY_DAYS} (account_id, day)
           SELECT $1, day FROM (SELECT DISTINCT (order_date AT TIME ZONE 'UTC')::date AS day FROM merged ${movedFrom}) days)
         SELECT count(*) FILTER (WHERE inserted)::int AS inserted FROM merged`,
        [accountId, ingestionId],
      ))!.inserted;
    await tx.rows('SAVEPOINT merge');
    try {
      return await merge(STAGE);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== UNIQUE_VIOLATION && code !== CARDINALITY_VIOLATION) throw error;
      await tx.rows('ROLLBACK TO SAVEPOINT merge');
      return merge(`(SELECT DISTINCT ON (order_id, product_id) * FROM ${STAGE} ORDER BY order_id, product_id, record DESC) last`);
    }
  }

  /** Records the days of lines COPYed straight into `sales` as dirty, for the rollup refresher (as the merge does for its own). */
  async markDaysDirty(tx: SqlClient, accountId: string, days: Iterable<string>): Promise<void> {
    const list = [...days];
    if (list.length === 0) return;
    await tx.rows(`INSERT INTO ${DIRTY_DAYS} (account_id, day) SELECT $1, day FROM unnest($2::date[]) AS day`, [accountId, list]);
  }

  /** Stores an upload's row errors (bounded by INGEST_MAX_STORED_ERRORS), in file order. */
  async storeErrors(tx: SqlClient, ingestionId: string, errors: RowError[]): Promise<void> {
    if (errors.length === 0) return;
    await tx.rows(
      `INSERT INTO ${INGEST_PUSH_SCHEMA}.sales_ingestion_errors (ingestion_id, line, record, field, reason)
       SELECT $1, line, record, field, reason FROM unnest($2::int[], $3::int[], $4::text[], $5::text[]) AS e(line, record, field, reason)`,
      [ingestionId, errors.map((e) => e.line), errors.map((e) => e.record), errors.map((e) => e.field), errors.map((e) => e.reason)],
    );
  }

  /**
   * How many customers (by CPF/CNPJ digits) of the merged rows the account erased before: their data is stored
   * again, and the answer says so. The hashes are computed only when the account has erasures at all.
   */
  async erasedCustomers(tx: SqlClient, accountId: string, ingestionId: string, linesIn: 'stage' | 'sales', keys: SubjectKey[]): Promise<number> {
    if (keys.length === 0) return 0;
    // The upload's lines: all in the stage, or (some went straight into sales) those the upload wrote.
    const lines = linesIn === 'stage' ? STAGE : `${INGEST_PUSH_SCHEMA}.sales WHERE account_id = $1 AND ingestion_id = $5`;
    const row = await tx.one<{ n: number }>(
      `SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM ${INGEST_PUSH_SCHEMA}.sales_customer_erasures WHERE account_id = $1) THEN 0 ELSE (
         SELECT count(DISTINCT s.digits)::int FROM (SELECT DISTINCT ${documentDigitsSql('customer_cpf_cnpj')} AS digits FROM ${lines}) s
         CROSS JOIN unnest($2::text[], $3::bytea[], $4::bytea[]) AS k(id, ipad, opad)
         JOIN ${INGEST_PUSH_SCHEMA}.sales_customer_erasures e
           ON e.account_id = $1 AND e.key_id = k.id AND e.subject = ${customerSubjectSql('s.digits', 'k.ipad', 'k.opad')}) END AS n`,
      [accountId, keys.map((k) => k.id), keys.map((k) => k.ipad), keys.map((k) => k.opad), ...(linesIn === 'stage' ? [] : [ingestionId])],
    );
    return row!.n;
  }

  /**
   * Marks the ingestion completed inside its transaction, unless a cancel was requested:
   * then false, and the caller rolls back. The row lock orders this against DELETE's request.
   */
  async markCompleted(tx: SqlClient, id: string, counts: IngestionCounts, merged: MergeResult): Promise<boolean> {
    const rows = await tx.rows(
      `UPDATE ${INGEST_PUSH_SCHEMA}.sales_ingestions SET status = 'completed', stage = NULL, bytes = $2, received = $3, rejected = $4, error_count = $5,
         errors_not_stored = $6, inserted = $7, updated = $8, erased_customers = $9, finished_at = clock_timestamp() WHERE id = $1 AND NOT cancel_requested RETURNING id`,
      [id, counts.bytes, counts.received, counts.rejected, counts.errorCount, counts.errorsNotStored, merged.inserted, merged.updated, merged.erasedCustomers],
    );
    return rows.length > 0;
  }

  findIngestion(accountId: string, id: string): Promise<IngestionListItem | null> {
    return this.sql.one<IngestionListItem>(`SELECT ${INGESTION_COLUMNS} FROM ${INGEST_PUSH_SCHEMA}.sales_ingestions WHERE id = $1 AND account_id = $2`, [
      id,
      accountId,
    ]);
  }

  /** The account's ingestions, newest first, optionally of one status (index sales_ingestions_account_started_idx). */
  listIngestions(accountId: string, status: IngestionStatus | undefined, limit: number, offset: number): Promise<{ rows: IngestionListItem[]; total: number }> {
    const params: unknown[] = status === undefined ? [accountId] : [accountId, status];
    const where = status === undefined ? 'account_id = $1' : 'account_id = $1 AND status = $2';
    return this.sql.page<IngestionListItem>(
      { columns: INGESTION_COLUMNS, source: `${INGEST_PUSH_SCHEMA}.sales_ingestions WHERE ${where}`, orderBy: 'started_at DESC, id DESC', params },
      limit,
      offset,
    );
  }

  /** Rows of the account's completed ingestions by the UTC hour they started, from `since` on. */
  rowsByHour(accountId: string, since: string): Promise<Array<{ hour: string; inserted: number; updated: number; rejected: number }>> {
    return this.sql.rows(
      `SELECT ${hourOf('started_at')} AS hour, sum(inserted)::int AS inserted, sum(updated)::int AS updated, sum(rejected)::int AS rejected
         FROM ${INGEST_PUSH_SCHEMA}.sales_ingestions WHERE account_id = $1 AND started_at >= $2 AND status = 'completed' GROUP BY 1`,
      [accountId, since],
    );
  }

  /** Errors of an ingestion in file order, `limit` from after error id `after` (keyset paging). */
  async errorsAfter(ingestionId: string, after: string, limit: number): Promise<Array<RowError & { id: string }>> {
    return this.sql.rows(
      `SELECT id, line, record, field, reason FROM ${INGEST_PUSH_SCHEMA}.sales_ingestion_errors
       WHERE ingestion_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [ingestionId, after, limit],
    );
  }

  /**
   * An upload's transaction: its COPY lasts as long as the body (bounded by the upload's own deadlines) and its merge
   * grows with the file, so neither DB_STATEMENT_TIMEOUT_SECONDS nor the client's query timeout applies.
   */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.sql.transaction(work, { longRunning: true });
  }
}
