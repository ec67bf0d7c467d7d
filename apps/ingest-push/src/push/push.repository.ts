import { Injectable } from '@nestjs/common';
import { DAY_SECONDS, isoTimestamp, prepared, Pruner, Sql, type SqlRunner } from '@app/database';
import { TRACE_CONTEXT_SQL } from '@app/observability';
import { hourOf } from '@app/pagination';
import { PushConfig } from './push.config';
import { INGEST_PUSH_SCHEMA } from '../database/ingest-push.schema';
import type { AcceptedItem, PushItemView, RejectedItem } from './push-batch.dto';
import type { ValidPush } from './push-item.validator';
import type { Platform } from './push-payload';

export interface NewBatch {
  accountId: string;
  idempotencyKey: string | null;
  requestHash: Buffer | null;
  pushes: Array<{ index: number; push: ValidPush; status: 'scheduled' | 'quiet' }>;
  rejections: RejectedItem[];
  throttle: number | null;
  expectedFinish: Date | null;
}

export interface StoredBatch {
  id: string;
  request_hash: Buffer | null;
  accepted: number;
  rejected: number;
  rejections: RejectedItem[];
  created_at: string;
  cancelled_at: string | null;
  throttle_per_minute: number | null;
  expected_finish_at: string | null;
}

/** One attempt a job carries: the item and the attempt number the relay gave it. */
export interface ItemAttempt {
  id: string;
  attempt: number;
}

/** A claimed item: what the provider needs. */
export interface ClaimedItem {
  id: string;
  attempt: number;
  account_id: string;
  device: string;
  title: string;
  body: string;
  url_scheme: string | null;
  batch_id: string;
  /** The batch's throttle (null: unlimited). */
  throttle: number | null;
  /** The account's frequency cap (both null: none). */
  cap_max_pushes: number | null;
  cap_window_hours: number | null;
}

/**
 * The outcome of one attempt, as recorded. `retry_in_ms` makes the item due again; null means final.
 * `deferred`: not sent and not an attempt (the throttle had no slot soon enough): scheduled again with its attempt count unchanged.
 */
export interface AttemptResult {
  id: string;
  attempt: number;
  status: 'sent' | 'failed' | 'invalid_token' | 'scheduled' | 'capped' | 'deferred';
  error: string | null;
  provider_id: string | null;
  retry_in_ms: number | null;
}

const BATCH_VIEW = `id, request_hash, accepted, rejected, rejections, ${isoTimestamp('created_at')}, ${isoTimestamp('cancelled_at')}, throttle_per_minute,
  ${isoTimestamp('expected_finish_at')}`;
const ITEM_VIEW = `position AS index, id, status, platform, device AS nm_push, title, body, url_scheme, ${isoTimestamp('due_at')}, attempts,
  ${isoTimestamp('sent_at')}, provider_id, error`;

/**
 * A batch ends when none of its items is scheduled or sending any more; PUSH_RETENTION_DAYS after the last
 * change of its last item, its items are deleted, then (empty) the batch: whole batches go, never a part of one.
 */
const ENDED_BATCH = `SELECT b.id FROM ${INGEST_PUSH_SCHEMA}.push_batches b WHERE b.created_at < cutoff AND NOT EXISTS (
  SELECT 1 FROM ${INGEST_PUSH_SCHEMA}.push_items x WHERE x.batch_id = b.id AND (x.status IN ('scheduled', 'sending') OR x.updated_at >= cutoff))`;

/**
 * The two statements of every send job, prepared (parsed and planned once per connection, unless DATABASE_POOLER=transaction):
 * the claim of the job's attempts and the record of their outcomes.
 *
 * The claim's conditions are checked by the UPDATE itself, so a row a concurrent claim changed meanwhile is checked again
 * as committed (and skipped): no row lock is taken beforehand. A claim sets only columns no index covers (`status`,
 * `attempts`, `claimed_at`; the others keep their values), so it is a HOT update: no index entry per push.
 */
const CLAIM = prepared(
  `${INGEST_PUSH_SCHEMA}.claim_pushes`,
  `WITH c AS (
     SELECT t.id, x.attempt, d.reason AS invalid, b.throttle_per_minute AS throttle, s.cap_max_pushes, s.cap_window_hours
     FROM unnest($1::uuid[], $2::int[]) AS x(id, attempt)
     JOIN ${INGEST_PUSH_SCHEMA}.push_items t ON t.id = x.id
     JOIN ${INGEST_PUSH_SCHEMA}.push_batches b ON b.id = t.batch_id
     LEFT JOIN ${INGEST_PUSH_SCHEMA}.push_invalid_devices d ON d.account_id = t.account_id AND d.platform = $3 AND d.device = t.device
     LEFT JOIN ${INGEST_PUSH_SCHEMA}.push_settings s ON s.account_id = t.account_id
   )
   UPDATE ${INGEST_PUSH_SCHEMA}.push_items t SET attempts = c.attempt, claimed_at = now(),
     status = CASE WHEN c.invalid IS NULL THEN 'sending' ELSE 'invalid_token' END,
     error = CASE WHEN c.invalid IS NULL THEN t.error ELSE left('skipped: device marked invalid (' || c.invalid || ')', 1024) END,
     next_attempt_at = CASE WHEN c.invalid IS NULL THEN t.next_attempt_at END,
     queued_at = CASE WHEN c.invalid IS NULL THEN t.queued_at END,
     updated_at = CASE WHEN c.invalid IS NULL THEN t.updated_at ELSE now() END
   FROM c WHERE t.id = c.id AND t.attempts = c.attempt - 1
     AND (t.status = 'scheduled' OR (t.status = 'sending' AND t.claimed_at < now() - make_interval(secs => $4::float8 / 1000)))
   RETURNING t.id, c.attempt, t.account_id, t.device, t.title, t.body, t.url_scheme, t.batch_id, c.throttle, c.cap_max_pushes, c.cap_window_hours,
     c.invalid IS NOT NULL AS skipped`,
);
const RECORD = prepared(
  `${INGEST_PUSH_SCHEMA}.record_pushes`,
  `UPDATE ${INGEST_PUSH_SCHEMA}.push_items t SET status = CASE WHEN r.status = 'deferred' THEN 'scheduled' ELSE r.status END,
     attempts = CASE WHEN r.status = 'deferred' THEN t.attempts - 1 ELSE t.attempts END,
     error = CASE WHEN r.status = 'deferred' THEN t.error ELSE left(r.error, 1024) END, provider_id = r.provider_id, updated_at = now(),
     sent_at = CASE WHEN r.status = 'sent' THEN now() ELSE t.sent_at END,
     next_attempt_at = CASE WHEN r.retry_in_ms IS NULL THEN NULL ELSE now() + make_interval(secs => r.retry_in_ms / 1000.0) END,
     queued_at = NULL
   FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[], $6::int[]) AS r(id, attempt, status, error, provider_id, retry_in_ms)
   WHERE t.id = r.id AND t.attempts = r.attempt AND t.status = 'sending'`,
);

@Injectable()
export class PushRepository {
  constructor(
    private readonly db: Sql,
    config: PushConfig,
    pruner: Pruner,
  ) {
    const keepSeconds = () => config.PUSH_RETENTION_DAYS * DAY_SECONDS;
    pruner.register(
      { table: `${INGEST_PUSH_SCHEMA}.push_items`, expired: `batch_id IN (${ENDED_BATCH})`, keepSeconds },
      {
        table: `${INGEST_PUSH_SCHEMA}.push_batches`,
        expired: `created_at < cutoff AND NOT EXISTS (SELECT 1 FROM ${INGEST_PUSH_SCHEMA}.push_items x WHERE x.batch_id = push_batches.id)`,
        keepSeconds,
      },
    );
  }

  /**
   * Records the batch and all its accepted items in one statement (one transaction):
   * nothing is stored if anything fails. Returns null when the account already has a
   * batch with this Idempotency-Key (the caller answers with that one).
   */
  async insertBatch(batch: NewBatch): Promise<{ id: string; items: AcceptedItem[] } | null> {
    const p = batch.pushes;
    const rows = await this.db.rows<{ batch_id: string } & AcceptedItem>(
      `WITH b AS (
         INSERT INTO ${INGEST_PUSH_SCHEMA}.push_batches (account_id, idempotency_key, request_hash, accepted, rejected, rejections, throttle_per_minute, expected_finish_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $16, $17)
         ON CONFLICT (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING id
       ), i AS (
         INSERT INTO ${INGEST_PUSH_SCHEMA}.push_items (batch_id, account_id, position, name, platform, device, title, body, url_scheme, due_at, next_attempt_at, status, trace_context)
         SELECT b.id, $1, x.position, x.name, x.platform, x.device, x.title, x.body, x.url_scheme, x.due_at,
           CASE WHEN x.status = 'scheduled' THEN x.due_at END, x.status, ${TRACE_CONTEXT_SQL}
         FROM b CROSS JOIN unnest($7::int[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::timestamptz[], $15::text[])
           AS x(position, name, platform, device, title, body, url_scheme, due_at, status)
         RETURNING position, id, status, due_at
       )
       SELECT b.id AS batch_id, i.position AS index, i.id, i.status, ${isoTimestamp('i.due_at', 'due_at')}
       FROM b LEFT JOIN i ON true ORDER BY i.position`,
      [
        batch.accountId,
        batch.idempotencyKey,
        batch.requestHash,
        p.length,
        batch.rejections.length,
        JSON.stringify(batch.rejections),
        p.map((x) => x.index),
        p.map((x) => x.push.name),
        p.map((x) => x.push.platform),
        p.map((x) => x.push.device),
        p.map((x) => x.push.title),
        p.map((x) => x.push.body),
        p.map((x) => x.push.urlScheme),
        p.map((x) => x.push.dueAt.toISOString()),
        p.map((x) => x.status),
        batch.throttle,
        batch.expectedFinish?.toISOString() ?? null,
      ],
    );
    if (rows.length === 0) return null;
    return { id: rows[0].batch_id, items: rows.filter((r) => r.id !== null).map(({ index, id, status, due_at }) => ({ index, id, status, due_at })) };
  }

  findByIdempotencyKey(accountId: string, key: string): Promise<StoredBatch | null> {
    return this.db.one<StoredBatch>(`SELECT ${BATCH_VIEW} FROM ${INGEST_PUSH_SCHEMA}.push_batches WHERE account_id = $1 AND idempotency_key = $2`, [
      accountId,
      key,
    ]);
  }

  find(accountId: string, id: string): Promise<StoredBatch | null> {
    return this.db.one<StoredBatch>(`SELECT ${BATCH_VIEW} FROM ${INGEST_PUSH_SCHEMA}.push_batches WHERE account_id = $1 AND id = $2`, [accountId, id]);
  }

  /** Every accepted item of a batch, in request order (for the answer to a repeated request). */
  acceptedItems(batchId: string): Promise<AcceptedItem[]> {
    return this.db.rows<AcceptedItem>(
      `SELECT position AS index, id, status, ${isoTimestamp('due_at')} FROM ${INGEST_PUSH_SCHEMA}.push_items WHERE batch_id = $1 ORDER BY position`,
      [batchId],
    );
  }

  /** The batch's items by status, and how many of them were opened (under the key `opened`). */
  async countsByStatus(batchId: string): Promise<Record<string, number>> {
    const rows = await this.db.rows<{ status: string; n: number; opened: number }>(
      `SELECT status, count(*)::int AS n, count(opened_at)::int AS opened FROM ${INGEST_PUSH_SCHEMA}.push_items WHERE batch_id = $1 GROUP BY status`,
      [batchId],
    );
    return { ...Object.fromEntries(rows.map((r) => [r.status, r.n])), opened: rows.reduce((n, r) => n + r.opened, 0) };
  }

  /**
   * The account's batches, newest first (index push_batches_account_created_idx), each with its
   * items counted by status (index push_items_batch_position_uq) in the same query.
   */
  batches(
    accountId: string,
    limit: number,
    offset: number,
  ): Promise<{ rows: Array<Omit<StoredBatch, 'request_hash' | 'rejections'> & { counts: Record<string, number> }>; total: number }> {
    return this.db.page(
      {
        columns: `id, accepted, rejected, ${isoTimestamp('created_at')}, ${isoTimestamp('cancelled_at')}, throttle_per_minute, ${isoTimestamp('expected_finish_at')},
          (SELECT coalesce(jsonb_object_agg(c.status, c.n), '{}') || jsonb_build_object('opened', coalesce(sum(c.opened), 0))
            FROM (SELECT status, count(*)::int AS n, count(opened_at)::int AS opened FROM ${INGEST_PUSH_SCHEMA}.push_items i WHERE i.batch_id = b.id GROUP BY status) c) AS counts`,
        source: `${INGEST_PUSH_SCHEMA}.push_batches b WHERE b.account_id = $1`,
        orderBy: 'b.created_at DESC, b.id DESC',
        params: [accountId],
      },
      limit,
      offset,
    );
  }

  /** The account's finished pushes by UTC hour of their end, platform and outcome, from `since` on (index push_items_ended_idx). */
  outcomesByHour(
    accountId: string,
    since: string,
  ): Promise<Array<{ hour: string; platform: Platform; status: 'sent' | 'failed' | 'invalid_token'; n: number }>> {
    return this.db.rows(
      `SELECT ${hourOf('updated_at')} AS hour, platform, status, count(*)::int AS n FROM ${INGEST_PUSH_SCHEMA}.push_items
        WHERE account_id = $1 AND next_attempt_at IS NULL AND status IN ('sent', 'failed', 'invalid_token') AND updated_at >= $2 GROUP BY 1, 2, 3`,
      [accountId, since],
    );
  }

  /** The account's opens by UTC hour of the open, from `since` on (index push_items_opened_idx). */
  opensByHour(accountId: string, since: string): Promise<Array<{ hour: string; n: number }>> {
    return this.db.rows(
      `SELECT ${hourOf('opened_at')} AS hour, count(*)::int AS n FROM ${INGEST_PUSH_SCHEMA}.push_items
        WHERE account_id = $1 AND opened_at >= $2 GROUP BY 1`,
      [accountId, since],
    );
  }

  /**
   * Records the first open of a push that went out (sent, or sending while its outcome is being recorded).
   * Null when no such push exists; `counted` false when it was opened before (a replay) or was never sent.
   */
  async recordOpen(id: string): Promise<{ status: string; opened_at: string | null; counted: boolean } | null> {
    return this.db.one(
      `WITH u AS (
         UPDATE ${INGEST_PUSH_SCHEMA}.push_items SET opened_at = now() WHERE id = $1 AND opened_at IS NULL AND status IN ('sent', 'sending')
         RETURNING status, opened_at
       )
       SELECT status, ${isoTimestamp('opened_at')}, true AS counted FROM u
       UNION ALL
       SELECT status, ${isoTimestamp('opened_at')}, false FROM ${INGEST_PUSH_SCHEMA}.push_items WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM u)`,
      [id],
    );
  }

  items(batchId: string, limit: number, offset: number): Promise<{ rows: PushItemView[]; total: number }> {
    return this.db.page<PushItemView>(
      { columns: ITEM_VIEW, source: `${INGEST_PUSH_SCHEMA}.push_items WHERE batch_id = $1`, orderBy: 'position', params: [batchId] },
      limit,
      offset,
    );
  }

  /** Cancels, on `tx`, what has not been claimed for sending; returns how many items were cancelled. */
  async cancel(tx: SqlRunner, batchId: string): Promise<number> {
    const rows = await tx.rows(
      `UPDATE ${INGEST_PUSH_SCHEMA}.push_items SET status = 'cancelled', next_attempt_at = NULL, queued_at = NULL, updated_at = now()
         WHERE batch_id = $1 AND status = 'scheduled' RETURNING 1`,
      [batchId],
    );
    await tx.rows(`UPDATE ${INGEST_PUSH_SCHEMA}.push_batches SET cancelled_at = COALESCE(cancelled_at, now()) WHERE id = $1`, [batchId]);
    return rows.length;
  }

  /**
   * Claims the attempts a job carries: an item is claimed only if it still waits for exactly
   * this attempt (a replayed or duplicate job claims nothing, so nothing is sent twice), or if
   * a claim of the previous attempt is older than `staleMs` (its worker died mid-send).
   * Items to devices marked invalid are settled as `invalid_token` right here and not returned.
   */
  async claim(platform: Platform, attempts: ItemAttempt[], staleMs: number): Promise<ClaimedItem[]> {
    const rows = await this.db.rows<ClaimedItem & { skipped: boolean }>(CLAIM, [attempts.map((a) => a.id), attempts.map((a) => a.attempt), platform, staleMs]);
    return rows.filter((row) => !row.skipped).map(({ skipped: _, ...item }) => item);
  }

  /** Records outcomes of claimed attempts; an outcome for an attempt no longer current is ignored. */
  async record(results: AttemptResult[]): Promise<void> {
    if (results.length === 0) return;
    await this.db.rows(RECORD, [
      results.map((r) => r.id),
      results.map((r) => r.attempt),
      results.map((r) => r.status),
      results.map((r) => r.error),
      results.map((r) => r.provider_id),
      results.map((r) => r.retry_in_ms),
    ]);
  }

  /** Marks devices a provider called unregistered or invalid; later pushes to them are skipped. */
  async markInvalid(platform: Platform, devices: Array<{ accountId: string; device: string; reason: string }>): Promise<void> {
    if (devices.length === 0) return;
    await this.db.rows(
      `INSERT INTO ${INGEST_PUSH_SCHEMA}.push_invalid_devices (account_id, platform, device, reason)
       SELECT DISTINCT ON (a, d) a, $1, d, left(r, 1024) FROM unnest($2::uuid[], $3::text[], $4::text[]) AS x(a, d, r)
       ON CONFLICT (account_id, platform, device) DO UPDATE SET reason = EXCLUDED.reason, marked_at = now()`,
      [platform, devices.map((d) => d.accountId), devices.map((d) => d.device), devices.map((d) => d.reason)],
    );
  }
}
