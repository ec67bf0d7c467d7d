import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql } from '@app/database';
import { DataSource } from 'typeorm';
import type { AttemptTrigger } from './webhook-attempt.entity';
import type { DeliveryStatus } from './webhook-delivery.entity';
import { START_WINDOW, type WebhookStatus } from './webhook.entity';
import { WebhookServiceConfig } from './webhook.config';

/** A webhook as the engine knows it; each service shows its own view of it. `headers` as stored (values encrypted) until WebhooksService opens them. */
export interface WebhookRecord {
  id: string;
  owner: string;
  url: string;
  events: string[];
  status: WebhookStatus;
  headers: Record<string, string>;
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

/** One attempt as the attempt log shows it. */
export interface AttemptView {
  attempt: number;
  trigger: AttemptTrigger;
  outcome: 'succeeded' | 'failed';
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  response_body: string | null;
  attempted_at: string;
}

/** What a delivery attempt needs to know about its webhook (secrets and header values still encrypted). */
export interface StoredTarget {
  id: string;
  owner: string;
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
  owner: string;
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
  /** The token of the worker's claim on this attempt (`claim`): only the claim's holder records it. */
  claim: string;
  trigger: AttemptTrigger;
  status: 'succeeded' | 'retrying' | 'failed' | 'cancelled';
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  /** The first 1 KB of the response body. */
  response_body: string | null;
  /** For `retrying`: milliseconds from now until the next attempt. */
  retry_in_ms: number | null;
}

export interface NewWebhookRow {
  url: string;
  events: string[];
  status: WebhookStatus;
  headers: Record<string, string>;
  /** Encrypted; null when the service signs nothing. */
  secret: string | null;
}

export interface WebhookChanges {
  url?: string;
  events?: string[];
  status?: WebhookStatus;
  headers?: Record<string, string>;
}

const VIEW = `id, owner, url, events, status, headers, ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}`;
const DELIVERY_VIEW = `id, webhook_id, event_id, event_type AS event, status, attempts, response_status, duration_ms, error,
  ${isoTimestamp('next_attempt_at', 'next_retry_at')}, ${isoTimestamp('last_attempt_at')}, ${isoTimestamp('created_at')}`;
const ATTEMPT_VIEW = `attempt, trigger, outcome, response_status, duration_ms, error, response_body, ${isoTimestamp('attempted_at')}`;

/** Only a success answered faster than this widens the window. */
const FAST_ANSWER_MS = 1000;

/**
 * Each webhook's delivery window (`webhooks.delivery_window`, the relay's cap for it, under
 * WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK = $2) moves with the attempts recorded in `r`/`u`, as
 * TCP's congestion window and Pub/Sub's push flow control do. It starts at START_WINDOW;
 * each success answered within FAST_ANSWER_MS adds 1 (so a receiver that keeps up doubles
 * it every round, up to the maximum); a group with any failed attempt (an error answer, a
 * timeout, no connection) halves it, never below 1. Slow successes leave it where it is, so
 * a receiver that answers slowly never earns more worker slots than it started with. It is
 * written only when it moves.
 */
const DELIVERY_WINDOW = (schema: string) => `UPDATE ${schema}.webhooks wh SET delivery_window = CASE
           WHEN g.failed > 0 THEN GREATEST(1, LEAST(wh.delivery_window, $2) / 2)
           ELSE LEAST($2, wh.delivery_window + g.fast) END
         FROM (SELECT u.webhook_id,
                 count(*) FILTER (WHERE r.status = 'succeeded' AND r.duration_ms < ${FAST_ANSWER_MS}) AS fast,
                 count(*) FILTER (WHERE r.status IN ('retrying', 'failed')) AS failed
               FROM r JOIN u ON u.id = r.id GROUP BY u.webhook_id) g
         WHERE wh.id = g.webhook_id AND (g.failed > 0 OR (g.fast > 0 AND wh.delivery_window < $2))`;

/** The engine's tables, in the schema of the app that uses it (the data source's schema, whatever its name). */
@Injectable()
export class WebhooksRepository {
  /** The quoted schema of the app's tables. */
  readonly schema: string;
  /** The quoted, schema-qualified outbox table. */
  readonly deliveriesTable: string;
  private readonly cancelOpen: string;

  constructor(
    private readonly db: Sql,
    dataSource: DataSource,
    private readonly config: WebhookServiceConfig,
  ) {
    this.schema = `"${String(dataSource.driver.schema).replace(/"/g, '""')}"`;
    this.deliveriesTable = `${this.schema}.webhook_deliveries`;
    // Deliveries that are neither finished nor running move to `cancelled` when their webhook goes inactive.
    this.cancelOpen = `UPDATE ${this.deliveriesTable} SET status = 'cancelled', next_attempt_at = NULL
      WHERE webhook_id = $1 AND status IN ('pending', 'retrying') AND queued_at IS NULL`;
  }

  // --- registration -------------------------------------------------------------------

  /** Null when the owner already has a webhook with this url. */
  insert(owner: string, row: NewWebhookRow): Promise<WebhookRecord | null> {
    return this.db.one<WebhookRecord>(
      `INSERT INTO ${this.schema}.webhooks (owner, url, events, status, headers, secret) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (owner, url) DO NOTHING RETURNING ${VIEW}`,
      [owner, row.url, row.events, row.status, row.headers, row.secret],
    );
  }

  find(owner: string, id: string): Promise<WebhookRecord | null> {
    return this.db.one<WebhookRecord>(`SELECT ${VIEW} FROM ${this.schema}.webhooks WHERE owner = $1 AND id = $2`, [owner, id]);
  }

  list(owner: string, limit: number, offset: number): Promise<{ rows: WebhookRecord[]; total: number }> {
    return this.db.page<WebhookRecord>(
      { columns: VIEW, source: `${this.schema}.webhooks WHERE owner = $1`, orderBy: 'created_at, id', params: [owner] },
      limit,
      offset,
    );
  }

  /**
   * Applies the changes. Going inactive cancels what is waiting; an owner's activation
   * forgets why the engine disabled it and starts a fresh failure count. A new url, or an
   * inactive webhook made active, starts again from the first delivery window: that
   * receiver has earned nothing yet. Throws 23505 when the url is another webhook's.
   */
  update(owner: string, id: string, changes: WebhookChanges): Promise<WebhookRecord | null> {
    return this.db.transaction(async (tx) => {
      const row = await tx.one<WebhookRecord>(
        `UPDATE ${this.schema}.webhooks SET url = COALESCE($3, url), events = COALESCE($4, events), status = COALESCE($5, status),
           headers = COALESCE($6, headers),
           disabled_reason = CASE WHEN $5 = 'active' THEN NULL ELSE disabled_reason END,
           failing_since = CASE WHEN $5 = 'active' THEN NULL ELSE failing_since END,
           delivery_window = CASE WHEN $3 <> url OR ($5 = 'active' AND status = 'inactive') THEN ${START_WINDOW} ELSE delivery_window END,
           updated_at = now()
         WHERE owner = $1 AND id = $2 RETURNING ${VIEW}`,
        [owner, id, changes.url ?? null, changes.events ?? null, changes.status ?? null, changes.headers ?? null],
      );
      if (row?.status === 'inactive') await tx.rows(this.cancelOpen, [id]);
      return row;
    });
  }

  async delete(owner: string, id: string): Promise<boolean> {
    return (await this.db.rows(`DELETE FROM ${this.schema}.webhooks WHERE owner = $1 AND id = $2 RETURNING id`, [owner, id])).length > 0;
  }

  /** Installs a new (encrypted) secret; the current one keeps signing for `graceSeconds`. */
  rotate(owner: string, id: string, secret: string, graceSeconds: number): Promise<(WebhookRecord & { previous_secret_expires_at: string }) | null> {
    return this.db.one(
      `UPDATE ${this.schema}.webhooks SET previous_secret = secret, secret = $3,
         previous_secret_expires_at = now() + make_interval(secs => $4), updated_at = now()
       WHERE owner = $1 AND id = $2 RETURNING ${VIEW}, ${isoTimestamp('previous_secret_expires_at')}`,
      [owner, id, secret, graceSeconds],
    );
  }

  /** The event types the owner's active webhooks subscribe to. */
  async subscribedEvents(owner: string): Promise<string[]> {
    const rows = await this.db.rows<{ event: string }>(
      `SELECT DISTINCT unnest(events) AS event FROM ${this.schema}.webhooks WHERE owner = $1 AND status = 'active'`,
      [owner],
    );
    return rows.map((r) => r.event);
  }

  // --- events -------------------------------------------------------------------------

  /**
   * The one SQL that records events: CTEs that take `events` (a SELECT of `event_id`,
   * `owner`, `event_type`, `data`) and write one delivery per active webhook of the owner
   * subscribed to the type. A CTE, so `event_id` is drawn once per event, not per webhook.
   * `RECORDED_CTE` counts what was written.
   */
  eventCtes(events: string): string {
    return `${EVENT_CTE} AS (${events}),
      ${RECORDED_CTE} AS (
        INSERT INTO ${this.deliveriesTable} (webhook_id, owner, event_id, event_type, occurred_at, data)
        SELECT wh.id, e.owner, e.event_id, e.event_type, now(), e.data
        FROM ${EVENT_CTE} e JOIN ${this.schema}.webhooks wh
          ON wh.owner = e.owner AND wh.status = 'active' AND e.event_type = ANY (wh.events)
        RETURNING 1
      )`;
  }

  /** Records one event per item for every subscribed active webhook; returns how many deliveries were written. */
  async recordEvents(owner: string, eventType: string, items: unknown[]): Promise<number> {
    const row = await this.db.one<{ n: number }>(
      `WITH ${this.eventCtes(`SELECT gen_random_uuid() AS event_id, $1::text AS owner, $2::text AS event_type, x.data FROM json_array_elements($3::json) AS x(data)`)}
       SELECT count(*)::int AS n FROM ${RECORDED_CTE}`,
      [owner, eventType, JSON.stringify(items)],
    );
    return row!.n;
  }

  // --- delivery log -------------------------------------------------------------------

  /** Newest first. */
  deliveries(webhookId: string, limit: number, offset: number): Promise<{ rows: DeliveryView[]; total: number }> {
    return this.db.page<DeliveryView>(
      { columns: DELIVERY_VIEW, source: `${this.deliveriesTable} WHERE webhook_id = $1`, orderBy: 'created_at DESC, id DESC', params: [webhookId] },
      limit,
      offset,
    );
  }

  async deliveryExists(webhookId: string, id: string): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM ${this.deliveriesTable} WHERE webhook_id = $1 AND id = $2`, [webhookId, id])) !== null;
  }

  /** Oldest first. */
  attempts(deliveryId: string, limit: number, offset: number): Promise<{ rows: AttemptView[]; total: number }> {
    return this.db.page<AttemptView>(
      { columns: ATTEMPT_VIEW, source: `${this.schema}.webhook_attempts WHERE delivery_id = $1`, orderBy: 'attempt, id', params: [deliveryId] },
      limit,
      offset,
    );
  }

  /** Makes a delivery due now, unless a job for it is in the queue or a worker's claim on it is live. */
  redeliver(webhookId: string, id: string): Promise<DeliveryView | null> {
    return this.db.one<DeliveryView>(
      `UPDATE ${this.deliveriesTable} SET status = 'pending', next_attempt_at = now(), retry_from = attempts
       WHERE webhook_id = $1 AND id = $2 AND queued_at IS NULL AND (claimed_until IS NULL OR claimed_until <= now()) RETURNING ${DELIVERY_VIEW}`,
      [webhookId, id],
    );
  }

  // --- engine -------------------------------------------------------------------------

  /** The keys (active webhooks) the outbox relay works with, each with its delivery window as its cap. */
  get relayKeys(): string {
    return `SELECT id AS key, delivery_window AS cap FROM ${this.schema}.webhooks WHERE status = 'active'`;
  }

  target(id: string): Promise<StoredTarget | null> {
    return this.db.one<StoredTarget>(
      `SELECT id, owner, url, status, headers, failing_since IS NOT NULL AS failing,
         CASE WHEN secret IS NULL THEN ARRAY[]::text[]
              WHEN previous_secret IS NOT NULL AND previous_secret_expires_at > now() THEN ARRAY[secret, previous_secret]
              ELSE ARRAY[secret] END AS secrets
       FROM ${this.schema}.webhooks WHERE id = $1`,
      [id],
    );
  }

  /**
   * Claims the attempts a job carries for the worker that runs it, before anything is sent: a delivery is claimed
   * only while it still waits for exactly this attempt (not finished, attempt number unchanged) and no other claim
   * on it is live. A job that runs again (queued again after a lost job, or taken over by BullMQ after a lost lock)
   * therefore claims nothing while the first run's claim is live or once it recorded its outcome. A claim lasts
   * `leaseMs`; past it (its worker died mid-send) another run may claim the same attempt. Returns the ids claimed.
   *
   * Two runs racing take the row lock in turn: the second re-checks the conditions on the row the first committed.
   */
  async claim(attempts: Array<{ id: string; attempt: number }>, token: string, leaseMs: number): Promise<Set<string>> {
    const rows = await this.db.rows<{ id: string }>(
      `UPDATE ${this.deliveriesTable} d SET claim_token = $3, claimed_until = now() + make_interval(secs => $4::float8 / 1000)
       FROM unnest($1::uuid[], $2::int[]) AS x(id, attempt)
       WHERE d.id = x.id AND d.attempts = x.attempt - 1 AND d.status IN ('pending', 'retrying')
         AND (d.claimed_until IS NULL OR d.claimed_until <= now())
       RETURNING d.id`,
      [attempts.map((a) => a.id), attempts.map((a) => a.attempt), token, leaseMs],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Records many attempts in one statement: the delivery's state, and a row in the attempt
   * log for each request made, and releases the claim. An attempt whose number no longer matches,
   * or whose claim is no longer the row's (another run took it over), changes nothing. Returns the ids recorded.
   *
   * A worker can finish before the relay's transaction that queued the job commits. The
   * condition must therefore hold on the row as it was before that transaction
   * (`queued_at` still null): PostgreSQL then waits for the relay's row lock and applies
   * the update to the committed row. A condition on `queued_at` would skip the row, and
   * the delivery would wait for the lost-job sweep.
   */
  async recordAttempts(records: AttemptRecord[]): Promise<Set<string>> {
    const rows = await this.db.rows<{ id: string }>(
      `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, attempt int, claim uuid, trigger text, status text, response_status int,
           duration_ms int, error text, response_body text, retry_in_ms bigint)
       ), u AS (
         UPDATE ${this.deliveriesTable} d SET
           status = r.status, error = r.error, queued_at = NULL, claim_token = NULL, claimed_until = NULL,
           attempts = CASE WHEN r.status = 'cancelled' THEN d.attempts ELSE r.attempt END,
           response_status = CASE WHEN r.status = 'cancelled' THEN d.response_status ELSE r.response_status END,
           duration_ms = CASE WHEN r.status = 'cancelled' THEN d.duration_ms ELSE r.duration_ms END,
           last_attempt_at = CASE WHEN r.status = 'cancelled' THEN d.last_attempt_at ELSE now() END,
           next_attempt_at = CASE WHEN r.status = 'retrying' THEN now() + make_interval(secs => r.retry_in_ms / 1000.0) END
         FROM r WHERE d.id = r.id AND d.attempts = r.attempt - 1 AND d.claim_token = r.claim
         RETURNING d.id, d.webhook_id
       ), w AS (
         ${DELIVERY_WINDOW(this.schema)}
       ), a AS (
         INSERT INTO ${this.schema}.webhook_attempts (delivery_id, attempt, trigger, outcome, response_status, duration_ms, error, response_body)
         SELECT r.id, r.attempt, r.trigger, CASE WHEN r.status = 'succeeded' THEN 'succeeded' ELSE 'failed' END,
           r.response_status, r.duration_ms, r.error, r.response_body
         FROM r JOIN u ON u.id = r.id WHERE r.status <> 'cancelled'
       )
       SELECT id FROM u`,
      [JSON.stringify(records), this.config.WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK],
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
      await tx.rows(this.cancelOpen, [id]);
    });
  }

  // --- secrets at rest ----------------------------------------------------------------

  /**
   * Webhooks with a secret or a header value not made with the key `currentPrefix` starts
   * (plaintext, or an older key).
   */
  secretsToReencrypt(currentPrefix: string, limit: number): Promise<Array<SecretsAtRest & { id: string }>> {
    return this.db.rows(
      `SELECT id, secret, previous_secret, headers FROM ${this.schema}.webhooks
       WHERE (secret IS NOT NULL AND NOT starts_with(secret, $1)) OR (previous_secret IS NOT NULL AND NOT starts_with(previous_secret, $1))
          OR EXISTS (SELECT 1 FROM jsonb_each_text(headers) h WHERE NOT starts_with(h.value, $1))
       ORDER BY id LIMIT $2`,
      [currentPrefix, limit],
    );
  }

  /** Writes re-encrypted secrets and headers, each row only if it still holds what was read. */
  async replaceSecrets(rows: Array<{ id: string; old: SecretsAtRest; next: SecretsAtRest }>): Promise<number> {
    const updated = await this.db.rows(
      `UPDATE ${this.schema}.webhooks w SET secret = r.secret, previous_secret = r.previous_secret, headers = r.headers
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, old_secret text, secret text, old_previous text, previous_secret text, old_headers jsonb, headers jsonb)
       WHERE w.id = r.id AND w.secret IS NOT DISTINCT FROM r.old_secret AND w.previous_secret IS NOT DISTINCT FROM r.old_previous AND w.headers = r.old_headers
       RETURNING 1`,
      [
        JSON.stringify(
          rows.map(({ id, old, next }) => ({
            id, old_secret: old.secret, secret: next.secret, old_previous: old.previous_secret, previous_secret: next.previous_secret, old_headers: old.headers, headers: next.headers,
          })),
        ),
      ],
    );
    return updated.length;
  }
}

/** What a webhook keeps encrypted at rest. */
export interface SecretsAtRest {
  secret: string | null;
  previous_secret: string | null;
  headers: Record<string, string>;
}

/** The engine's own CTE names inside a caller's statement (prefixed so they never meet the caller's). */
const EVENT_CTE = 'webhook_engine_event';
export const RECORDED_CTE = 'webhook_engine_recorded';
