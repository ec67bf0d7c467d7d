import { Injectable } from '@nestjs/common';
import { DAY_SECONDS, isoTimestamp, prepared, Pruner, Sql, type SqlRunner } from '@app/database';
import { MessagesConfig } from './messages.config';
import type { StatusChange } from '../network/network-events';
import type { MessageSummary, MessageView } from './message-answers.dto';
import type { MessageFilter } from './message-query.dto';

/** Messages of one phone by hour of sending and current status (GET api/Stats): one index-only scan of messages_phone_created_status_idx. */
export const STATUS_BUCKETS = `SELECT to_char(date_trunc('hour', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD"T"HH24:00:00"Z"') AS hour, status, count(*)::int AS n
  FROM gateway.messages WHERE phone_ref = $1 AND created_at >= $2 GROUP BY 1, 2`;

/** Later statuses never move a message back (a late `delivered` after `read` is history, not state). */
const RANK = `CASE $2 WHEN 'accepted' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 4 END`;
const CURRENT_RANK = `CASE m.status WHEN 'accepted' THEN 0 WHEN 'sent' THEN 1 WHEN 'delivered' THEN 2 WHEN 'read' THEN 3 ELSE 4 END`;

/** Every send runs it: prepared, so PostgreSQL neither parses nor plans it per message. */
/**
 * A sent message, its first status, and its conversation moved up, in one statement (one round trip, one commit).
 * The conversation is written only when it is not already the first of the phone's list: sends to one contact in a
 * row would otherwise each wait for the row lock of the one before, held to its commit.
 */
const INSERT_MESSAGE = prepared(
  'gateway.insert_message',
  `WITH m AS (
     INSERT INTO gateway.messages (id, phone_ref, "to", wa_id, type, status, payload) VALUES ($1, $2, $3, $4, $5, 'accepted', $6)
     ON CONFLICT (id) DO NOTHING RETURNING id),
   s AS (INSERT INTO gateway.message_statuses (message_id, status) SELECT id, 'accepted' FROM m),
   first AS (SELECT wa_id FROM gateway.conversations WHERE phone_ref = $2 ORDER BY last_message_at DESC, wa_id DESC LIMIT 1),
   moved AS (
     UPDATE gateway.conversations c SET last_message_at = greatest(c.last_message_at, now())
      WHERE c.phone_ref = $2 AND c.wa_id = $4 AND c.wa_id IS DISTINCT FROM (SELECT wa_id FROM first) AND EXISTS (SELECT 1 FROM m)),
   opened AS (
     INSERT INTO gateway.conversations AS c (phone_ref, wa_id, last_message_at)
     SELECT $2, $4, now() FROM m WHERE NOT EXISTS (SELECT 1 FROM gateway.conversations WHERE phone_ref = $2 AND wa_id = $4)
     ON CONFLICT (phone_ref, wa_id) DO UPDATE SET last_message_at = greatest(c.last_message_at, excluded.last_message_at))
   SELECT id FROM m`,
);

@Injectable()
export class MessagesRepository {
  constructor(
    private readonly sql: Sql,
    config: MessagesConfig,
    pruner: Pruner,
  ) {
    pruner.register({
      table: 'gateway.message_statuses',
      expired: 'occurred_at < cutoff',
      keepSeconds: () => config.MESSAGE_STATUS_RETENTION_DAYS * DAY_SECONDS,
    });
  }

  /** Records a sent message and its first status, in one statement; false when the id is already recorded (nothing changes). */
  async insert(message: { id: string; phoneRef: string; to: string; waId: string; type: string; payload: unknown }): Promise<boolean> {
    const rows = await this.sql.rows(INSERT_MESSAGE, [message.id, message.phoneRef, message.to, message.waId, message.type, message.payload]);
    return rows.length > 0;
  }

  /** How many of `ids` are media of the account; the ones that are not come back. */
  async unknownMedia(accountId: string, ids: string[]): Promise<string[]> {
    const known = await this.sql.rows<{ id: string }>(`SELECT id FROM gateway.media WHERE account_id = $1 AND id = ANY($2)`, [accountId, ids]);
    const found = new Set(known.map((r) => r.id));
    return ids.filter((id) => !found.has(id));
  }

  /**
   * Records a status of a message the phone sent, once (a repeated notification changes nothing),
   * and moves the message forward. A status carrying `pricing` also sets the message's pricing
   * category and billability (what GET api/Usage counts, kept after the statuses are pruned).
   * Null when the phone sent no message with that id; else its recipient, and whether the status is new.
   */
  async recordStatus(tx: SqlRunner, phoneRef: string, change: StatusChange): Promise<{ recipient: string; fresh: boolean } | null> {
    const row = await tx.one<{ wa_id: string; fresh: boolean }>(
      `WITH target AS (SELECT id, wa_id FROM gateway.messages WHERE id = $1 AND phone_ref = $5),
       s AS (
         INSERT INTO gateway.message_statuses (message_id, status, errors, occurred_at, pricing, conversation)
         SELECT id, $2, $3, to_timestamp($4), $6, $7 FROM target
         ON CONFLICT (message_id, status) DO NOTHING RETURNING message_id),
       u AS (
         UPDATE gateway.messages m
            SET status = CASE WHEN ${CURRENT_RANK} < ${RANK} THEN $2 ELSE m.status END, updated_at = now(),
                pricing_category = coalesce($6::jsonb ->> 'category', m.pricing_category),
                billable = coalesce(($6::jsonb ->> 'billable')::boolean, m.billable)
          WHERE m.id = $1 AND EXISTS (SELECT 1 FROM s) AND (${CURRENT_RANK} < ${RANK} OR $6::jsonb IS NOT NULL))
       SELECT wa_id, EXISTS (SELECT 1 FROM s) AS fresh FROM target`,
      [
        change.messageId,
        change.status,
        change.errors ? JSON.stringify(change.errors) : null,
        change.timestamp,
        phoneRef,
        change.pricing ? JSON.stringify(change.pricing) : null,
        change.conversation ? JSON.stringify(change.conversation) : null,
      ],
    );
    return row ? { recipient: row.wa_id, fresh: row.fresh } : null;
  }

  /**
   * One page of a phone's messages, newest first, after the keyset `after` (the last row of the
   * previous page); `limit + 1` rows, so the caller knows whether another page follows.
   */
  list(phoneRef: string, filter: MessageFilter, limit: number, after: { at: string; id: string } | null): Promise<Omit<MessageSummary, 'phone_id'>[]> {
    return this.sql.rows(
      `SELECT id, "to", wa_id, type, status, ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}
         FROM gateway.messages
        WHERE phone_ref = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR wa_id = $3 OR "to" = $3)
          AND ($4::timestamptz IS NULL OR created_at >= $4) AND ($5::timestamptz IS NULL OR created_at < $5)
          AND ($6::timestamptz IS NULL OR (created_at, id) < ($6, $7))
        ORDER BY created_at DESC, id DESC LIMIT $8`,
      [phoneRef, filter.status ?? null, filter.recipient ?? null, filter.since ?? null, filter.until ?? null, after?.at ?? null, after?.id ?? null, limit + 1],
    );
  }

  /** Counts by hour (ISO 8601, UTC) and current status of the messages the phone sent since `since`. */
  statusBuckets(phoneRef: string, since: string): Promise<{ hour: string; status: string; n: number }[]> {
    return this.sql.rows(STATUS_BUCKETS, [phoneRef, since]);
  }

  /**
   * A phone's messages sent in [since, until) by day (UTC) and pricing category (null: no status has carried pricing yet),
   * with how many are billable. Reads the phone's rows through messages_phone_created_status_idx.
   */
  usage(phoneRef: string, since: string, until: string): Promise<{ day: string; category: string | null; messages: number; billable: number }[]> {
    return this.sql.rows(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, pricing_category AS category,
              count(*)::int AS messages, (count(*) FILTER (WHERE billable))::int AS billable
         FROM gateway.messages WHERE phone_ref = $1 AND created_at >= $2 AND created_at < $3
        GROUP BY 1, 2`,
      [phoneRef, since, until],
    );
  }

  find(accountId: string, id: string): Promise<MessageView | null> {
    return this.sql.one<MessageView>(
      `SELECT m.id, p.phone_id, m."to", m.wa_id, m.type, m.status, ${isoTimestamp('m.created_at')}, ${isoTimestamp('m.updated_at')},
              (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('status', s.status, 'timestamp', to_char(s.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'), 'errors', s.errors, 'pricing', s.pricing, 'conversation', s.conversation)) ORDER BY s.id), '[]')
                 FROM gateway.message_statuses s WHERE s.message_id = m.id) AS statuses
         FROM gateway.messages m JOIN gateway.phones p ON p.id = m.phone_ref
        WHERE m.id = $2 AND p.account_id = $1`,
      [accountId, id],
    );
  }
}
