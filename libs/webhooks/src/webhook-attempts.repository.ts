import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql } from '@app/database';
import type { AttemptTrigger } from './webhook-attempt.entity';
import { WebhookServiceConfig } from './webhook.config';
import { WebhookTables } from './webhook-tables';

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
const DELIVERY_WINDOW = (webhooks: string) => `UPDATE ${webhooks} wh SET delivery_window = CASE
           WHEN g.failed > 0 THEN GREATEST(1, LEAST(wh.delivery_window, $2) / 2)
           ELSE LEAST($2, wh.delivery_window + g.fast) END
         FROM (SELECT u.webhook_id,
                 count(*) FILTER (WHERE r.status = 'succeeded' AND r.duration_ms < ${FAST_ANSWER_MS}) AS fast,
                 count(*) FILTER (WHERE r.status IN ('retrying', 'failed')) AS failed
               FROM r JOIN u ON u.id = r.id GROUP BY u.webhook_id) g
         WHERE wh.id = g.webhook_id AND (g.failed > 0 OR (g.fast > 0 AND wh.delivery_window < $2))`;

/** Attempts: a worker's claim on one before it sends, its outcome recorded with the delivery's state, and the attempt log. */
@Injectable()
export class WebhookAttemptsRepository {
  constructor(
    private readonly db: Sql,
    private readonly tables: WebhookTables,
    private readonly config: WebhookServiceConfig,
  ) {}

  /** Oldest first. */
  list(deliveryId: string, limit: number, offset: number): Promise<{ rows: AttemptView[]; total: number }> {
    return this.db.page<AttemptView>(
      { columns: ATTEMPT_VIEW, source: `${this.tables.attempts} WHERE delivery_id = $1`, orderBy: 'attempt, id', params: [deliveryId] },
      limit,
      offset,
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
      `UPDATE ${this.tables.deliveries} d SET claim_token = $3, claimed_until = now() + make_interval(secs => $4::float8 / 1000)
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
  /** Writes the attempts; answers, for each one written, the seconds from its delivery's creation (its event) to now. */
  async recordAttempts(records: AttemptRecord[]): Promise<Map<string, number>> {
    const rows = await this.db.rows<{ id: string; age: number }>(
      `WITH r AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, attempt int, claim uuid, trigger text, status text, response_status int,
           duration_ms int, error text, response_body text, retry_in_ms bigint)
       ), u AS (
         UPDATE ${this.tables.deliveries} d SET
           status = r.status, error = r.error, queued_at = NULL, claim_token = NULL, claimed_until = NULL,
           attempts = CASE WHEN r.status = 'cancelled' THEN d.attempts ELSE r.attempt END,
           response_status = CASE WHEN r.status = 'cancelled' THEN d.response_status ELSE r.response_status END,
           duration_ms = CASE WHEN r.status = 'cancelled' THEN d.duration_ms ELSE r.duration_ms END,
           last_attempt_at = CASE WHEN r.status = 'cancelled' THEN d.last_attempt_at ELSE now() END,
           next_attempt_at = CASE WHEN r.status = 'retrying' THEN now() + make_interval(secs => r.retry_in_ms / 1000.0) END
         FROM r WHERE d.id = r.id AND d.attempts = r.attempt - 1 AND d.claim_token = r.claim
         RETURNING d.id, d.webhook_id, extract(epoch FROM now() - d.created_at)::float8 AS age
       ), w AS (
         ${DELIVERY_WINDOW(this.tables.webhooks)}
       ), a AS (
         INSERT INTO ${this.tables.attempts} (delivery_id, attempt, trigger, outcome, response_status, duration_ms, error, response_body)
         SELECT r.id, r.attempt, r.trigger, CASE WHEN r.status = 'succeeded' THEN 'succeeded' ELSE 'failed' END,
           r.response_status, r.duration_ms, r.error, r.response_body
         FROM r JOIN u ON u.id = r.id WHERE r.status <> 'cancelled'
       )
       SELECT id, age FROM u`,
      [JSON.stringify(records), this.config.WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK],
    );
    return new Map(rows.map((r) => [r.id, r.age]));
  }
}
