import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql } from '@app/database';
import { DataSource } from 'typeorm';
import type { DeliveryStatus } from './webhook-delivery.entity';
import type { WebhookStatus } from './webhook.entity';

/** A webhook as the API shows it. */
export interface WebhookView {
  id: string;
  client_id: string;
  url: string;
  events: string[];
  status: WebhookStatus;
  created_at: string;
  updated_at: string;
}

/** A delivery as the delivery log shows it. */
export interface DeliveryView {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_retry_at: string | null;
  last_attempt_at: string | null;
  created_at: string;
}

/** What a delivery attempt needs to know about its webhook. */
export interface DeliveryTarget {
  id: string;
  client_id: string;
  url: string;
  status: WebhookStatus;
  secrets: string[];
  headers: Record<string, string>;
  failing: boolean;
}

/** A delivery handed to the queue. */
export interface QueuedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  client_id: string;
  occurred_at: string;
  data: unknown;
  attempts: number;
  retry_from: number;
}

/** The outcome of one attempt, as recorded. */
export interface AttemptRecord {
  id: string;
  /** 1-based number of this attempt. */
  attempt: number;
  status: 'succeeded' | 'retrying' | 'failed' | 'cancelled';
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  /** For `retrying`: milliseconds from now until the next attempt. */
  retry_in_ms: number | null;
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  status?: WebhookStatus;
}

const VIEW = `id, client_id, url, events, status, ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}`;
const DELIVERY_VIEW = `id, webhook_id, event_id, event_type AS event, status, attempts, response_status, duration_ms, error,
  ${isoTimestamp('next_attempt_at', 'next_retry_at')}, ${isoTimestamp('last_attempt_at')}, ${isoTimestamp('created_at')}`;

/** Deliveries that are neither finished nor running move to `cancelled` when their webhook goes inactive. */
const CANCEL_OPEN = (s: string) => `UPDATE ${s}.webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL
  WHERE webhook_id = $1 AND status IN ('pending', 'retrying') AND queued_at IS NULL`;

/**
 * CTE parts that record an event for every row of `source` (a CTE or table alias whose
 * rows are exactly what the API returns, with a `client_id` column): one delivery per
 * active webhook of that client subscribed to the event, in the same statement (and so
 * the same transaction) as the change. `eventType` is an SQL expression over `s`, the
 * source row. Count what was recorded with `${DELIVERIES_RECORDED}`.
 */
export function recordEventsCte(schema: string, source: string, eventType: string): string {
  return `, webhook_event AS (
      SELECT gen_random_uuid() AS event_id, ${eventType} AS event_type, s.client_id, now() AS occurred_at, to_json(s) AS data FROM ${source} s
    ), webhook_delivery AS (
      INSERT INTO ${schema}.webhook_deliveries (webhook_id, client_id, event_id, event_type, occurred_at, data)
      SELECT wh.id, e.client_id, e.event_id, e.event_type, e.occurred_at, e.data
      FROM webhook_event e JOIN ${schema}.webhooks wh
        ON wh.client_id = e.client_id AND wh.status = 'active' AND e.event_type = ANY (wh.events)
      RETURNING 1
    )`;
}

/** How many deliveries `recordEventsCte` wrote, for the statement's select list. */
export const DELIVERIES_RECORDED = '(SELECT count(*) FROM webhook_delivery)::int';

@Injectable()
export class WebhooksRepository {
  /** The quoted schema of the app's tables. */
  readonly schema: string;

  constructor(
    private readonly db: Sql,
    dataSource: DataSource,
  ) {
    this.schema = `"${dataSource.driver.schema}"`;
  }

  // --- registration -------------------------------------------------------------------

  async insert(clientId: string, url: string, events: string[], status: WebhookStatus, secret: string): Promise<WebhookView | null> {
    return this.db.one<WebhookView>(
      `INSERT INTO ${this.schema}.webhooks (client_id, url, events, status, secret) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (client_id, url) DO NOTHING RETURNING ${VIEW}`,
      [clientId, url, events, status, secret],
    );
  }

  find(clientId: string, id: string): Promise<WebhookView | null> {
    return this.db.one<WebhookView>(`SELECT ${VIEW} FROM ${this.schema}.webhooks WHERE client_id = $1 AND id = $2`, [clientId, id]);
  }

  list(clientId: string, limit: number, offset: number): Promise<{ rows: WebhookView[]; total: number }> {
    return this.db.page<WebhookView>(
      { columns: VIEW, source: `${this.schema}.webhooks WHERE client_id = $1`, orderBy: 'created_at, id', params: [clientId] },
      limit,
      offset,
    );
  }

  /**
   * Applies the changes. Going inactive cancels what is waiting; a client's activation
   * forgets why the engine disabled it and starts a fresh failure count.
   */
  update(clientId: string, id: string, changes: WebhookChanges): Promise<WebhookView | null> {
    return this.db.transaction(async (tx) => {
      const row = await tx.one<WebhookView>(
        `UPDATE ${this.schema}.webhooks SET url = COALESCE($3, url), events = COALESCE($4, events), status = COALESCE($5, status),
           disabled_reason = CASE WHEN $5 = 'active' THEN NULL ELSE disabled_reason END,
           failing_since = CASE WHEN $5 = 'active' THEN NULL ELSE failing_since END, updated_at = now()
         WHERE client_id = $1 AND id = $2 RETURNING ${VIEW}`,
        [clientId, id, changes.url ?? null, changes.events ?? null, changes.status ?? null],
      );
      if (row?.status === 'inactive') await tx.rows(CANCEL_OPEN(this.schema), [id]);
      return row;
    });
  }

  async delete(clientId: string, id: string): Promise<boolean> {
    return (await this.db.rows(`DELETE FROM ${this.schema}.webhooks WHERE client_id = $1 AND id = $2 RETURNING id`, [clientId, id])).length > 0;
  }

  /** Installs a new secret; the current one keeps signing for `graceSeconds`. */
  rotate(clientId: string, id: string, secret: string, graceSeconds: number): Promise<(WebhookView & { previous_secret_expires_at: string }) | null> {
    return this.db.one(
      `UPDATE ${this.schema}.webhooks SET previous_secret = secret, secret = $3,
         previous_secret_expires_at = now() + make_interval(secs => $4), updated_at = now()
       WHERE client_id = $1 AND id = $2 RETURNING ${VIEW}, ${isoTimestamp('previous_secret_expires_at')}`,
      [clientId, id, secret, graceSeconds],
    );
  }

  /** The event types the client's active webhooks subscribe to. */
  async subscribedEvents(clientId: string): Promise<string[]> {
    const rows = await this.db.rows<{ event: string }>(
      `SELECT DISTINCT unnest(events) AS event FROM ${this.schema}.webhooks WHERE client_id = $1 AND status = 'active'`,
      [clientId],
    );
    return rows.map((r) => r.event);
  }

  /** Records one event per item for every subscribed active webhook; returns how many deliveries were written. */
  async recordEvents(clientId: string, eventType: string, items: unknown[]): Promise<number> {
    const rows = await this.db.rows(
      `WITH e AS (SELECT gen_random_uuid() AS event_id, x.data FROM json_array_elements($3::json) AS x(data))
       INSERT INTO ${this.schema}.webhook_deliveries (webhook_id, client_id, event_id, event_type, occurred_at, data)
       SELECT wh.id, wh.client_id, e.event_id, $2, now(), e.data
       FROM e JOIN ${this.schema}.webhooks wh ON wh.client_id = $1 AND wh.status = 'active' AND $2 = ANY (wh.events)
       RETURNING 1`,
      [clientId, eventType, JSON.stringify(items)],
    );
    return rows.length;
  }

  // --- delivery log -------------------------------------------------------------------

  /** Newest first. */
  deliveries(webhookId: string, limit: number, offset: number): Promise<{ rows: DeliveryView[]; total: number }> {
    return this.db.page<DeliveryView>(
      { columns: DELIVERY_VIEW, source: `${this.schema}.webhook_deliveries WHERE webhook_id = $1`, orderBy: 'created_at DESC, id DESC', params: [webhookId] },
      limit,
      offset,
    );
  }

  async deliveryExists(webhookId: string, id: string): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM ${this.schema}.webhook_deliveries WHERE webhook_id = $1 AND id = $2`, [webhookId, id])) !== null;
  }

  /** Makes a delivery due now, unless a job for it is in the queue. */
  redeliver(webhookId: string, id: string): Promise<DeliveryView | null> {
    return this.db.one<DeliveryView>(
      `UPDATE ${this.schema}.webhook_deliveries SET status = 'pending', next_attempt_at = now(), retry_from = attempts
       WHERE webhook_id = $1 AND id = $2 AND queued_at IS NULL RETURNING ${DELIVERY_VIEW}`,
      [webhookId, id],
    );
  }

  // --- engine -------------------------------------------------------------------------

  target(id: string): Promise<DeliveryTarget | null> {
    return this.db.one<DeliveryTarget>(
      `SELECT id, client_id, url, status, headers, failing_since IS NOT NULL AS failing,
         CASE WHEN previous_secret IS NOT NULL AND previous_secret_expires_at > now()
              THEN ARRAY[secret, previous_secret] ELSE ARRAY[secret] END AS secrets
       FROM ${this.schema}.webhooks WHERE id = $1`,
      [id],
    );
  }

  /**
   * Marks due deliveries as queued and hands them to `enqueue` in the same transaction:
   * if the queue refuses them (Redis down), nothing is marked. Fair across webhooks: each
   * active webhook gets at most `perWebhook` jobs in the queue at any time.
   */
  relay(perWebhook: number, batch: number, enqueue: (rows: QueuedDelivery[]) => Promise<void>): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.rows<QueuedDelivery>(
        `WITH picked AS (
           SELECT d.id FROM ${this.schema}.webhooks w
           CROSS JOIN LATERAL (
             SELECT id FROM ${this.schema}.webhook_deliveries d
             WHERE d.webhook_id = w.id AND d.queued_at IS NULL AND d.next_attempt_at <= now()
             ORDER BY d.next_attempt_at
             LIMIT GREATEST(0, $1 - (SELECT count(*) FROM ${this.schema}.webhook_deliveries q WHERE q.webhook_id = w.id AND q.queued_at IS NOT NULL))
             FOR UPDATE SKIP LOCKED
           ) d
           WHERE w.status = 'active'
           LIMIT $2
         )
         UPDATE ${this.schema}.webhook_deliveries d SET queued_at = now() FROM picked WHERE d.id = picked.id
         RETURNING d.id, d.webhook_id, d.event_id, d.event_type, d.client_id, ${isoTimestamp('d.occurred_at')}, d.data, d.attempts, d.retry_from`,
        [perWebhook, batch],
      );
      if (rows.length > 0) await enqueue(rows);
      return rows.length;
    });
  }

  /** Deliveries queued longer than `seconds` ago whose job is gone (Redis lost it) become due again. */
  async requeueStale(seconds: number): Promise<number> {
    const rows = await this.db.rows(
      `UPDATE ${this.schema}.webhook_deliveries SET queued_at = NULL
       WHERE queued_at IS NOT NULL AND queued_at < now() - make_interval(secs => $1) RETURNING id`,
      [seconds],
    );
    return rows.length;
  }

  /**
   * Records many attempts in one statement. An attempt whose number no longer matches
   * (a duplicate job) changes nothing. Returns the ids that were recorded.
   *
   * A worker can finish before the relay's transaction that queued the job commits. The
   * condition must therefore hold on the row as it was before that transaction
   * (`queued_at` still null): PostgreSQL then waits for the relay's row lock and applies
   * the update to the committed row. A condition on `queued_at` would skip the row, and
   * the delivery would wait for WEBHOOK_REQUEUE_AFTER_SECONDS.
   */
  async recordAttempts(records: AttemptRecord[]): Promise<Set<string>> {
    const rows = await this.db.rows<{ id: string }>(
      `UPDATE ${this.schema}.webhook_deliveries d SET
         status = r.status, error = r.error, queued_at = NULL,
         attempts = CASE WHEN r.status = 'cancelled' THEN d.attempts ELSE r.attempt END,
         response_status = CASE WHEN r.status = 'cancelled' THEN d.response_status ELSE r.response_status END,
         duration_ms = CASE WHEN r.status = 'cancelled' THEN d.duration_ms ELSE r.duration_ms END,
         last_attempt_at = CASE WHEN r.status = 'cancelled' THEN d.last_attempt_at ELSE now() END,
         next_attempt_at = CASE WHEN r.status = 'retrying' THEN now() + make_interval(secs => r.retry_in_ms / 1000.0) END
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, attempt int, status text, response_status int, duration_ms int, error text, retry_in_ms bigint)
       WHERE d.id = r.id AND d.attempts = r.attempt - 1
       RETURNING d.id`,
      [JSON.stringify(records)],
    );
    return new Set(rows.map((r) => r.id));
  }

  /** Starts (or continues) a run of failures; returns how long it has lasted, in seconds. */
  async markFailing(id: string): Promise<number> {
    const row = await this.db.one<{ seconds: number }>(
      `UPDATE ${this.schema}.webhooks SET failing_since = COALESCE(failing_since, now())
       WHERE id = $1 RETURNING extract(epoch FROM now() - failing_since)::float8 AS seconds`,
      [id],
    );
    return row?.seconds ?? 0;
  }

  async clearFailing(id: string): Promise<void> {
    await this.db.rows(`UPDATE ${this.schema}.webhooks SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, [id]);
  }

  /** Sets the webhook inactive on the engine's own account, and cancels what waits for it. */
  disable(id: string, reason: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      await tx.rows(
        `UPDATE ${this.schema}.webhooks SET status = 'inactive', disabled_reason = $2, updated_at = now() WHERE id = $1`,
        [id, reason.slice(0, 255)],
      );
      await tx.rows(CANCEL_OPEN(this.schema), [id]);
    });
  }
}
