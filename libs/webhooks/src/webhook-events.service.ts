import { Injectable } from '@nestjs/common';
import { InjectLane } from '@app/queue';
import { WEBHOOK_DELIVERY_QUEUE } from './webhook-queue';
import type { WebhookLane } from './webhook-lane';
import { WebhookSubscriptions } from './webhook-subscriptions.service';
import { RECORDED_CTE, WebhookOutboxRepository } from './webhook-outbox.repository';

/** Rows of a write statement that become events, one per row. */
export interface EventRows {
  /** The name of a CTE of the caller's statement; each of its rows, as JSON, is one event's `data`. */
  rows: string;
  /** Its column that holds the owner of the webhooks to notify. */
  ownerColumn: string;
  /** The event type: a fixed one, or an SQL expression over the row, given the row's alias. */
  eventType: string | ((row: string) => string);
}

/** The column, in each row a `withEvents` statement returns, that counts the deliveries the statement recorded. */
const DELIVERIES_COLUMN = 'webhook_engine_deliveries';

/** The rows a `withEvents` statement returned, without the count, and how many deliveries it recorded. */
export function splitRecorded<T extends object>(rows: ReadonlyArray<T>): { rows: T[]; deliveries: number } {
  const deliveries = (rows[0] as Record<string, unknown> | undefined)?.[DELIVERIES_COLUMN];
  return {
    rows: rows.map((row) => {
      const { [DELIVERIES_COLUMN]: _count, ...rest } = row as Record<string, unknown>;
      return rest as T;
    }),
    deliveries: typeof deliveries === 'number' ? deliveries : 0,
  };
}

/**
 * How a service reports events. A write records its events inside its own statement (so
 * they commit or roll back with the change): build it with `withEvents`, read the result
 * with `splitRecorded`, and call `recorded` once the transaction committed. Reads, which have no transaction to join, call `emit`, which does
 * nothing unless an active webhook of the owner wants the event.
 */
@Injectable()
export class WebhookEvents {
  constructor(
    private readonly outbox: WebhookOutboxRepository,
    private readonly subscriptions: WebhookSubscriptions,
    @InjectLane(WEBHOOK_DELIVERY_QUEUE) private readonly lane: WebhookLane,
  ) {}

  /**
   * The complete statement: `WITH <ctes>, <event recording> SELECT <rows>.*, <count>`. Each
   * result row is a row of `source.rows` (split off the count with `splitRecorded`).
   */
  withEvents(ctes: string, source: EventRows): string {
    const type = typeof source.eventType === 'string' ? `'${source.eventType.replace(/'/g, "''")}'` : source.eventType('r');
    const events = `SELECT gen_random_uuid() AS event_id, r.${source.ownerColumn}::text AS owner, ${type}::text AS event_type, to_json(r) AS data FROM ${source.rows} r`;
    return `WITH ${ctes}, ${this.outbox.eventCtes(events)}
      SELECT r.*, (SELECT count(*) FROM ${RECORDED_CTE})::int AS ${DELIVERIES_COLUMN} FROM ${source.rows} r`;
  }

  /** Call after the write committed: wakes the relay when it recorded deliveries. */
  recorded(deliveries: number): void {
    if (deliveries > 0) this.lane.kick();
  }

  /** Records an event per item (in its own statement) if an active webhook of the owner wants it. */
  /** Nothing to wait for (no promise at all) when no webhook of the owner wants the event and that is cached: the common read. */
  emit(owner: string, eventType: string, items: readonly unknown[]): Promise<void> | void {
    if (items.length === 0) return;
    const wanted = this.subscriptions.wants(owner, eventType);
    if (wanted === false) return;
    return this.record(owner, eventType, items, wanted);
  }

  private async record(owner: string, eventType: string, items: readonly unknown[], wanted: true | Promise<boolean>): Promise<void> {
    if (!(await wanted)) return;
    this.recorded(await this.outbox.recordEvents(owner, eventType, [...items]));
  }
}
