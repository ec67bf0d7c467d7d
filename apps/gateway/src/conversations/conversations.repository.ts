import { Injectable } from '@nestjs/common';
import { prepared, Sql, type SqlRunner } from '@app/database';
import type { ConversationMessage, ConversationSummary } from './conversation-answers.dto';

const ISO = (column: string) => `to_char((${column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** What a send reads of a contact's opt-out (null when there is none). */
const OPT_OUT = `jsonb_build_object('source', o.source, 'keyword', o.keyword, 'opted_out_at', ${ISO('o.opted_out_at')})`;

/**
 * A send that needs the contact's window (a free-form message, the window enforced) reads it and the opt-out in one
 * statement; any other send reads the opt-out alone. Prepared, so PostgreSQL neither parses nor plans them per message.
 */
const SEND_STATE = prepared(
  'gateway.send_state',
  `SELECT coalesce((SELECT c.last_inbound_at + make_interval(secs => $4) > now() FROM gateway.conversations c WHERE c.phone_ref = $1 AND c.wa_id = $3), false) AS window_open,
          (SELECT ${OPT_OUT} FROM gateway.opt_outs o WHERE o.account_id = $2 AND o.wa_id = $3) AS opt_out`,
);
const SEND_OPT_OUT = prepared('gateway.send_opt_out', `SELECT ${OPT_OUT} AS opt_out FROM gateway.opt_outs o WHERE o.account_id = $1 AND o.wa_id = $2`);

/** An inbound message checked by the notification reader (or built by the sandbox), ready to store. */
export interface InboundRow {
  id: string;
  waId: string;
  type: string;
  payload: Record<string, unknown>;
  /** The network's Unix seconds. */
  timestamp: number;
  profileName: string | null;
}

/** A contact's opt-out as a send reads it. */
export interface SendOptOut {
  source: string;
  keyword: string | null;
  opted_out_at: string;
}

/** What a send checks, read in one statement at send time: the contact's window and opt-out. */
export interface SendState {
  window_open: boolean;
  opt_out: SendOptOut | null;
}

/**
 * Conversations, the inbound messages of each, and the window and opt-out state a send reads.
 * The thread and the list read the outbound side from gateway.messages (its messages_thread_idx).
 */
@Injectable()
export class ConversationsRepository {
  constructor(private readonly sql: Sql) {}

  /** The contact's window (open when it wrote within `windowSeconds`) and opt-out, straight from PostgreSQL: every replica sees a change at once. */
  async sendState(phoneRef: string, accountId: string, waId: string, windowSeconds: number): Promise<SendState> {
    const row = await this.sql.one<SendState>(SEND_STATE, [phoneRef, accountId, waId, windowSeconds]);
    return row!;
  }

  /** The contact's opt-out alone, straight from PostgreSQL (a send whose window is not checked). */
  async sendOptOut(accountId: string, waId: string): Promise<SendOptOut | null> {
    return (await this.sql.one<{ opt_out: SendOptOut }>(SEND_OPT_OUT, [accountId, waId]))?.opt_out ?? null;
  }

  /** The category of the account's template, or null when the gateway does not know it (created elsewhere). */
  async templateCategory(accountId: string, name: string, language: string): Promise<string | null> {
    const row = await this.sql.one<{ category: string }>(`SELECT category FROM gateway.templates WHERE account_id = $1 AND name = $2 AND language = $3`, [
      accountId,
      name,
      language,
    ]);
    return row?.category ?? null;
  }

  /**
   * Stores inbound messages (a repeated id changes nothing) and opens or extends each contact's window.
   * The time of a message is the network's, or the arrival time when the network's is this second or later
   * (its timestamps have whole seconds; the thread's order needs the arrival's precision).
   */
  async inbound(tx: SqlRunner, phoneRef: string, messages: InboundRow[]): Promise<void> {
    if (messages.length === 0) return;
    await tx.rows(
      `WITH given AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[], $6::float8[], $7::text[]) AS g(id, wa_id, type, payload, ts, profile_name)),
       timed AS (
         SELECT g.*, CASE WHEN to_timestamp(g.ts) >= date_trunc('second', now()) THEN now() ELSE to_timestamp(g.ts) END AS at FROM given g),
       stored AS (
         INSERT INTO gateway.inbound_messages (id, phone_ref, wa_id, type, payload, received_at)
         SELECT id, $1, wa_id, type, payload, at FROM timed ON CONFLICT (id) DO NOTHING RETURNING wa_id, received_at)
       INSERT INTO gateway.conversations AS c (phone_ref, wa_id, profile_name, last_inbound_at, last_message_at)
       SELECT $1, s.wa_id, (SELECT t.profile_name FROM timed t WHERE t.wa_id = s.wa_id AND t.profile_name IS NOT NULL LIMIT 1), max(s.received_at), max(s.received_at)
         FROM stored s GROUP BY s.wa_id
       ON CONFLICT (phone_ref, wa_id) DO UPDATE SET
         profile_name = coalesce(excluded.profile_name, c.profile_name),
         last_inbound_at = greatest(c.last_inbound_at, excluded.last_inbound_at),
         last_message_at = greatest(c.last_message_at, excluded.last_message_at)`,
      [
        phoneRef,
        messages.map((m) => m.id),
        messages.map((m) => m.waId),
        messages.map((m) => m.type),
        messages.map((m) => JSON.stringify(m.payload)),
        messages.map((m) => m.timestamp),
        messages.map((m) => m.profileName),
      ],
    );
  }

  /**
   * Media customers sent join the account's media (GET api/Medias/{id} serves them): the network's id, type and hash;
   * the size is 0 (the notification does not say it). An id already recorded is left as it is.
   */
  async receivedMedia(
    tx: SqlRunner,
    accountId: string,
    phoneRef: string,
    media: { id: string; kind: string; mimeType: string; sha256: string }[],
  ): Promise<void> {
    if (media.length === 0) return;
    await tx.rows(
      `INSERT INTO gateway.media (id, account_id, phone_ref, kind, mime_type, size, sha256)
       SELECT m.id, $1, $2, m.kind, m.mime_type, 0, decode(m.sha256, 'base64')
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS m(id, kind, mime_type, sha256)
       ON CONFLICT (id) DO NOTHING`,
      [accountId, phoneRef, media.map((m) => m.id), media.map((m) => m.kind), media.map((m) => m.mimeType), media.map((m) => m.sha256)],
    );
  }

  /** The business read a contact's message: it and every earlier unread message of the contact are read (as on the network). */
  async markRead(phoneRef: string, messageId: string): Promise<void> {
    await this.sql.rows(
      `UPDATE gateway.inbound_messages i SET read_at = now()
         FROM gateway.inbound_messages t
        WHERE t.id = $2 AND t.phone_ref = $1 AND i.phone_ref = $1 AND i.wa_id = t.wa_id AND i.received_at <= t.received_at AND i.read_at IS NULL`,
      [phoneRef, messageId],
    );
  }

  /** One page of the phone's conversations, the latest message first; `limit + 1` rows. With `waId`, that contact's only. */
  list(
    phoneRef: string,
    accountId: string,
    windowSeconds: number,
    limit: number,
    after: { at: string; id: string } | null,
    waId: string | null = null,
  ): Promise<(ConversationSummary & { cursor_at: string })[]> {
    return this.sql.rows(
      `SELECT c.wa_id, c.profile_name, ${ISO('c.last_message_at')} AS cursor_at,
              CASE WHEN c.last_inbound_at IS NULL THEN NULL ELSE ${ISO('c.last_inbound_at + make_interval(secs => $3)')} END AS window_expires_at,
              CASE WHEN c.last_inbound_at + make_interval(secs => $3) > now() THEN 'open' ELSE 'closed' END AS "window",
              (SELECT count(*)::int FROM gateway.inbound_messages i WHERE i.phone_ref = c.phone_ref AND i.wa_id = c.wa_id AND i.read_at IS NULL) AS unread_count,
              EXISTS (SELECT 1 FROM gateway.opt_outs o WHERE o.account_id = $2 AND o.wa_id = c.wa_id) AS opted_out,
              (SELECT jsonb_build_object('id', l.id, 'direction', l.direction, 'type', l.type, 'status', l.status, 'timestamp', ${ISO('l.at')},
                                         'text', coalesce(l.payload->'text'->>'body', l.payload->l.type->>'caption', l.payload->'button'->>'text', ''))
                 FROM ((SELECT m.id, 'outbound' AS direction, m.type, m.status, m.created_at AS at, m.payload FROM gateway.messages m
                         WHERE m.phone_ref = c.phone_ref AND m.wa_id = c.wa_id ORDER BY m.created_at DESC LIMIT 1)
                       UNION ALL
                       (SELECT i.id, 'inbound', i.type, CASE WHEN i.read_at IS NULL THEN 'received' ELSE 'read' END, i.received_at, i.payload FROM gateway.inbound_messages i
                         WHERE i.phone_ref = c.phone_ref AND i.wa_id = c.wa_id ORDER BY i.received_at DESC LIMIT 1)
                       ORDER BY at DESC LIMIT 1) l) AS last_message
         FROM gateway.conversations c
        WHERE c.phone_ref = $1 AND ($4::timestamptz IS NULL OR (c.last_message_at, c.wa_id) < ($4, $5)) AND ($7::text IS NULL OR c.wa_id = $7)
        ORDER BY c.last_message_at DESC, c.wa_id DESC LIMIT $6`,
      [phoneRef, accountId, windowSeconds, after?.at ?? null, after?.id ?? null, limit + 1, waId],
    );
  }

  async exists(phoneRef: string, waId: string): Promise<boolean> {
    return (await this.sql.one(`SELECT 1 FROM gateway.conversations WHERE phone_ref = $1 AND wa_id = $2`, [phoneRef, waId])) !== null;
  }

  /** One page of a contact's messages both ways, newest first, with their statuses; `limit + 1` rows. */
  thread(phoneRef: string, waId: string, limit: number, after: { at: string; id: string } | null): Promise<(ConversationMessage & { cursor_at: string })[]> {
    return this.sql.rows(
      `SELECT t.id, t.direction, t.type, t.status, ${ISO('t.at')} AS timestamp, ${ISO('t.at')} AS cursor_at, t.payload,
              CASE WHEN t.direction = 'outbound' THEN
                (SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('status', s.status, 'timestamp', ${ISO('s.occurred_at')}, 'errors', s.errors)) ORDER BY s.id), '[]')
                   FROM gateway.message_statuses s WHERE s.message_id = t.id)
              ELSE jsonb_build_array(jsonb_build_object('status', 'received', 'timestamp', ${ISO('t.at')}))
                   || CASE WHEN t.read_at IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(jsonb_build_object('status', 'read', 'timestamp', ${ISO('t.read_at')})) END
              END AS statuses
         FROM ((SELECT m.id, 'outbound' AS direction, m.type, m.status, m.created_at AS at, m.payload, NULL::timestamptz AS read_at FROM gateway.messages m
                 WHERE m.phone_ref = $1 AND m.wa_id = $2 AND ($3::timestamptz IS NULL OR (m.created_at, m.id) < ($3, $4))
                 ORDER BY m.created_at DESC, m.id DESC LIMIT $5)
               UNION ALL
               (SELECT i.id, 'inbound', i.type, CASE WHEN i.read_at IS NULL THEN 'received' ELSE 'read' END, i.received_at, i.payload, i.read_at FROM gateway.inbound_messages i
                 WHERE i.phone_ref = $1 AND i.wa_id = $2 AND ($3::timestamptz IS NULL OR (i.received_at, i.id) < ($3, $4))
                 ORDER BY i.received_at DESC, i.id DESC LIMIT $5)) t
        ORDER BY t.at DESC, t.id DESC LIMIT $5`,
      [phoneRef, waId, after?.at ?? null, after?.id ?? null, limit + 1],
    );
  }
}
