import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql } from '@app/database';
import { TRACE_CONTEXT_SQL } from '@app/observability';
import type { DeliveryStatus } from './webhook-delivery.entity';
import { WebhookTables } from './webhook-tables';

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
  trace_context: string | null;
}

const DELIVERY_VIEW = `id, webhook_id, event_id, event_type AS event, status, attempts, response_status, duration_ms, error,
  ${isoTimestamp('next_attempt_at', 'next_retry_at')}, ${isoTimestamp('last_attempt_at')}, ${isoTimestamp('created_at')}`;

/** The engine's own CTE names inside a caller's statement (prefixed so they never meet the caller's). */
const EVENT_CTE = 'webhook_engine_event';
export const RECORDED_CTE = 'webhook_engine_recorded';

/** The outbox (`webhook_deliveries`): events written as deliveries, what the relay takes, and the delivery log. */
@Injectable()
export class WebhookOutboxRepository {
  /** The quoted, schema-qualified outbox table. */
  readonly table: string;

  constructor(
    private readonly db: Sql,
    private readonly tables: WebhookTables,
  ) {
    this.table = tables.deliveries;
  }

  /**
   * The one SQL that records events: CTEs that take `events` (a SELECT of `event_id`,
   * `owner`, `event_type`, `data`) and write one delivery per active webhook of the owner
   * subscribed to the type. A CTE, so `event_id` is drawn once per event, not per webhook.
   * `RECORDED_CTE` counts what was written. Each delivery keeps the active trace context (the request's, bound
   * by libs/database), so its attempts continue the request's trace.
   */
  eventCtes(events: string): string {
    return `${EVENT_CTE} AS (${events}),
      ${RECORDED_CTE} AS (
        INSERT INTO ${this.table} (webhook_id, owner, event_id, event_type, occurred_at, data, trace_context)
        SELECT wh.id, e.owner, e.event_id, e.event_type, now(), e.data, ${TRACE_CONTEXT_SQL}
        FROM ${EVENT_CTE} e JOIN ${this.tables.webhooks} wh
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

  /**
   * The keys the outbox relay works with: active webhooks, each with its delivery window as its cap,
   * and its owner, whom the relay holds to WEBHOOK_MAX_IN_FLIGHT_PER_OWNER across all of its webhooks.
   */
  get relayKeys(): string {
    return `SELECT id AS key, delivery_window AS cap, owner FROM ${this.tables.webhooks} WHERE status = 'active'`;
  }

  /** Newest first. */
  deliveries(webhookId: string, limit: number, offset: number): Promise<{ rows: DeliveryView[]; total: number }> {
    return this.db.page<DeliveryView>(
      { columns: DELIVERY_VIEW, source: `${this.table} WHERE webhook_id = $1`, orderBy: 'created_at DESC, id DESC', params: [webhookId] },
      limit,
      offset,
    );
  }

  async deliveryExists(webhookId: string, id: string): Promise<boolean> {
    return (await this.db.one(`SELECT 1 FROM ${this.table} WHERE webhook_id = $1 AND id = $2`, [webhookId, id])) !== null;
  }

  /** Makes a delivery due now, unless a job for it is in the queue or a worker's claim on it is live. */
  redeliver(webhookId: string, id: string): Promise<DeliveryView | null> {
    return this.db.one<DeliveryView>(
      `UPDATE ${this.table} SET status = 'pending', next_attempt_at = now(), retry_from = attempts
       WHERE webhook_id = $1 AND id = $2 AND queued_at IS NULL AND (claimed_until IS NULL OR claimed_until <= now()) RETURNING ${DELIVERY_VIEW}`,
      [webhookId, id],
    );
  }
}
