import { Injectable } from '@nestjs/common';
import { DAY_SECONDS, isoTimestamp, Pruner, Sql, type CopySource, type SqlClient } from '@app/database';
import { SalesConfig } from './sales.config';
import { SALE_COLUMNS } from './sale-fields';
import type { RowError } from './sale-copy.encoder';
import type { IngestionStatus } from './sales-ingestion.entity';

const SCHEMA = 'ingest_push';
const STAGE = 'sales_stage';
const DATA = SALE_COLUMNS.join(', ');
/** PostgreSQL's "ON CONFLICT DO UPDATE command cannot affect row a second time". */
const CARDINALITY_VIOLATION = '21000';

export interface IngestionRow {
  id: string;
  status: IngestionStatus;
  format: string;
  bytes: string;
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
  error_count: number;
  failure: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number;
}

export interface IngestionCounts {
  bytes: number;
  received: number;
  rejected: number;
  errorCount: number;
}

export interface MergeResult {
  inserted: number;
  updated: number;
}

const INGESTION_COLUMNS = `id, status, format, bytes, received, inserted, updated, rejected, error_count, failure,
  ${isoTimestamp('started_at')}, ${isoTimestamp('finished_at')},
  (extract(epoch FROM coalesce(finished_at, clock_timestamp()) - started_at) * 1000)::int AS duration_ms`;

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
      { table: `${SCHEMA}.sales_ingestion_errors`, expired: `ingestion_id IN (SELECT id FROM ${SCHEMA}.sales_ingestions WHERE ${finished})`, keepSeconds },
      {
        table: `${SCHEMA}.sales_ingestions`,
        expired: `${finished} AND NOT EXISTS (SELECT 1 FROM ${SCHEMA}.sales_ingestion_errors e WHERE e.ingestion_id = sales_ingestions.id)`,
        keepSeconds,
      },
    );
  }

  async createIngestion(accountId: string, apiKeyId: string, format: string): Promise<string> {
    const row = await this.sql.one<{ id: string }>(
      `INSERT INTO ${SCHEMA}.sales_ingestions (account_id, api_key_id, format) VALUES ($1, $2, $3) RETURNING id`,
      [accountId, apiKeyId, format],
    );
    return row!.id;
  }

  /** Progress of a running ingestion, visible to GET while the upload's own transaction is open. */
  async recordProgress(id: string, counts: IngestionCounts): Promise<void> {
    await this.sql.rows(
      `UPDATE ${SCHEMA}.sales_ingestions SET bytes = $2, received = $3, rejected = $4, error_count = $5 WHERE id = $1 AND status = 'running'`,
      [id, counts.bytes, counts.received, counts.rejected, counts.errorCount],
    );
  }

  async markFailed(id: string, failure: string, counts: IngestionCounts): Promise<void> {
    await this.sql.rows(
      `UPDATE ${SCHEMA}.sales_ingestions SET status = 'failed', failure = $2, bytes = $3, received = $4, rejected = $5, error_count = $6,
         inserted = 0, updated = 0, finished_at = clock_timestamp() WHERE id = $1`,
      [id, failure, counts.bytes, counts.received, counts.rejected, counts.errorCount],
    );
  }

  /** A staging table for one upload's COPY; it lives as long as the transaction. */
  async createStage(tx: SqlClient): Promise<void> {
    await tx.rows(
      `CREATE TEMP TABLE ${STAGE} ON COMMIT DROP AS
         SELECT 0::int AS line, 0::int AS record, ${DATA}, ''::text AS error_field, ''::text AS error_reason
         FROM ${SCHEMA}.sales WITH NO DATA`,
    );
  }

  copyIntoStage(tx: SqlClient, source: CopySource, signal: AbortSignal): Promise<number> {
    return tx.copyFrom(`COPY ${STAGE} (line, record, ${DATA}, error_field, error_reason) FROM STDIN`, source, { signal });
  }

  /**
   * Merges the staged valid rows into `sales` in one statement, stores the staged errors,
   * and returns how many lines were new. A sale line seen before (same account, OrderId, ProductId) is updated; when
   * the file itself repeats a line, its last occurrence wins (the set-based merge cannot
   * touch a row twice, so only then are duplicates removed first, under a savepoint).
   */
  async mergeStage(tx: SqlClient, ingestionId: string, accountId: string): Promise<number> {
    const merge = (source: string) =>
      tx.one<{ inserted: number }>(
        `WITH merged AS (
           INSERT INTO ${SCHEMA}.sales (account_id, ingestion_id, ${DATA})
           SELECT $1, $2, ${DATA} FROM ${source}
           ON CONFLICT (account_id, order_id, product_id) DO UPDATE SET
             ${SALE_COLUMNS.filter((c) => c !== 'order_id' && c !== 'product_id').map((c) => `${c} = excluded.${c}`).join(', ')},
             ingestion_id = excluded.ingestion_id, updated_at = now()
           RETURNING (xmax = 0) AS inserted)
         SELECT count(*) FILTER (WHERE inserted)::int AS inserted FROM merged`,
        [accountId, ingestionId],
      );
    const valid = `${STAGE} WHERE error_field IS NULL`;
    await tx.rows('SAVEPOINT merge');
    let result: { inserted: number };
    try {
      result = (await merge(valid))!;
    } catch (error) {
      if ((error as { code?: string }).code !== CARDINALITY_VIOLATION) throw error;
      await tx.rows('ROLLBACK TO SAVEPOINT merge');
      result = (await merge(`(SELECT DISTINCT ON (order_id, product_id) * FROM ${valid} ORDER BY order_id, product_id, record DESC) last`))!;
    }
    await tx.rows(
      `INSERT INTO ${SCHEMA}.sales_ingestion_errors (ingestion_id, line, record, field, reason)
       SELECT $1, line, record, error_field, error_reason FROM ${STAGE} WHERE error_field IS NOT NULL ORDER BY record, line`,
      [ingestionId],
    );
    return result.inserted;
  }

  async markCompleted(tx: SqlClient, id: string, counts: IngestionCounts, merged: MergeResult): Promise<void> {
    await tx.rows(
      `UPDATE ${SCHEMA}.sales_ingestions SET status = 'completed', bytes = $2, received = $3, rejected = $4, error_count = $5,
         inserted = $6, updated = $7, finished_at = clock_timestamp() WHERE id = $1`,
      [id, counts.bytes, counts.received, counts.rejected, counts.errorCount, merged.inserted, merged.updated],
    );
  }

  findIngestion(accountId: string, id: string): Promise<IngestionRow | null> {
    return this.sql.one<IngestionRow>(`SELECT ${INGESTION_COLUMNS} FROM ${SCHEMA}.sales_ingestions WHERE id = $1 AND account_id = $2`, [id, accountId]);
  }

  /** Errors of an ingestion in file order, `limit` from after error id `after` (keyset paging). */
  async errorsAfter(ingestionId: string, after: string, limit: number): Promise<Array<RowError & { id: string }>> {
    return this.sql.rows(
      `SELECT id, line, record, field, reason FROM ${SCHEMA}.sales_ingestion_errors
       WHERE ingestion_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [ingestionId, after, limit],
    );
  }

  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.sql.transaction(work);
  }
}
