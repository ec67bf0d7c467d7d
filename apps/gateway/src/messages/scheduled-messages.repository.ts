import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql } from '@app/database';
import { TRACE_CONTEXT_SQL } from '@app/observability';
import type { PhoneRow } from '../accounts/accounts.repository';
import type { SendMessage } from '../network/chat-provider';

/** The table the scheduled-send lane relays (libs/queue's outbox contract). */
export const SCHEDULED_TABLE = 'gateway.scheduled_messages';

export type ScheduledState = 'scheduled' | 'sending' | 'sent' | 'cancelled' | 'failed';

/** A scheduled message as GET api/Messages/{id} starts from. */
export interface ScheduledRow {
  id: string;
  phone_id: string;
  to: string;
  wa_id: string;
  type: string;
  state: ScheduledState;
  send_at: string;
  message_id: string | null;
  error: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}

/** A row a worker claimed to send, with its phone (as the API-key store builds a phone context from). */
export interface ClaimedSend extends PhoneRow {
  id: string;
  request: SendMessage;
}

/** What became of one claimed send. */
export type SendOutcome =
  | { id: string; state: 'sent'; messageId: string }
  | { id: string; state: 'failed'; error: Record<string, unknown> }
  | { id: string; state: 'scheduled'; retryInMs: number };

@Injectable()
export class ScheduledMessagesRepository {
  constructor(private readonly sql: Sql) {}

  async insert(row: { id: string; phoneRef: string; to: string; waId: string; request: SendMessage; sendAt: string }): Promise<void> {
    await this.sql.rows(
      `INSERT INTO ${SCHEDULED_TABLE} (id, phone_ref, "to", wa_id, type, request, send_at, state, next_attempt_at, trace_context)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'scheduled', $7, ${TRACE_CONTEXT_SQL})`,
      [row.id, row.phoneRef, row.to, row.waId, row.request.type, JSON.stringify(row.request), row.sendAt],
    );
  }

  /** A scheduled message sent from any phone of the account. */
  find(accountId: string, id: string): Promise<ScheduledRow | null> {
    return this.sql.one<ScheduledRow>(
      `SELECT s.id, p.phone_id, s."to", s.wa_id, s.type, s.state, s.message_id, s.error,
              ${isoTimestamp('s.send_at', 'send_at')}, ${isoTimestamp('s.created_at', 'created_at')}, ${isoTimestamp('s.updated_at', 'updated_at')}
         FROM ${SCHEDULED_TABLE} s JOIN gateway.phones p ON p.id = s.phone_ref
        WHERE s.id = $2 AND p.account_id = $1`,
      [accountId, id],
    );
  }

  /** Cancels the account's message while it is still `scheduled`; false when it is not (or not the account's). */
  async cancel(accountId: string, id: string): Promise<boolean> {
    const rows = await this.sql.rows(
      `UPDATE ${SCHEDULED_TABLE} s SET state = 'cancelled', next_attempt_at = NULL, updated_at = now()
         FROM gateway.phones p
        WHERE s.id = $2 AND s.state = 'scheduled' AND p.id = s.phone_ref AND p.account_id = $1 RETURNING 1`,
      [accountId, id],
    );
    return rows.length > 0;
  }

  /**
   * Takes a job's attempts to send: only rows still `scheduled` whose next attempt is the one the job carries, so a job
   * run twice (or by two workers) sends each message once; a claimed row is due no more (`next_attempt_at` cleared) until
   * its outcome says. Rows the job carried that are no longer to send (cancelled meanwhile) are let go of (`queued_at`
   * cleared). Returns the claimed rows with their phones.
   */
  claim(items: { id: string; attempt: number }[]): Promise<ClaimedSend[]> {
    return this.sql.rows<ClaimedSend>(
      `WITH items AS (SELECT * FROM unnest($1::text[], $2::int[]) AS x(id, attempt)),
       released AS (
         UPDATE ${SCHEDULED_TABLE} t SET queued_at = NULL FROM items
          WHERE t.id = items.id AND t.state <> 'scheduled' AND t.queued_at IS NOT NULL),
       claimed AS (
         UPDATE ${SCHEDULED_TABLE} t SET state = 'sending', attempts = items.attempt, next_attempt_at = NULL, claimed_at = now(), updated_at = now()
           FROM items
          WHERE t.id = items.id AND t.state = 'scheduled' AND t.attempts = items.attempt - 1
          RETURNING t.id, t.request, t.phone_ref)
       SELECT c.id, c.request, p.id AS phone_ref, p.account_id, p.phone, p.phone_id, a.waba_id, a.access_token
         FROM claimed c JOIN gateway.phones p ON p.id = c.phone_ref JOIN gateway.accounts a ON a.id = p.account_id`,
      [items.map((i) => i.id), items.map((i) => i.attempt)],
    );
  }

  /** Records the outcomes of claimed sends in one statement: sent, failed, or due again later (the phone's throughput was full). */
  async record(outcomes: SendOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.sql.rows(
      `UPDATE ${SCHEDULED_TABLE} t
          SET state = o.state, message_id = o.message_id, error = o.error, queued_at = NULL, updated_at = now(),
              next_attempt_at = CASE WHEN o.state = 'scheduled' THEN now() + make_interval(secs => o.retry_ms / 1000.0) END
         FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::int[]) AS o(id, state, message_id, error, retry_ms)
        WHERE t.id = o.id AND t.state = 'sending'`,
      [
        outcomes.map((o) => o.id),
        outcomes.map((o) => o.state),
        outcomes.map((o) => (o.state === 'sent' ? o.messageId : null)),
        outcomes.map((o) => (o.state === 'failed' ? JSON.stringify(o.error) : null)),
        outcomes.map((o) => (o.state === 'scheduled' ? o.retryInMs : 0)),
      ],
    );
  }

  /**
   * Messages left `sending` longer than `leaseMs` (their worker died mid-send) become failed with `error`: the network may
   * have taken them, so they are never sent again. Returns how many.
   */
  async failAbandoned(leaseMs: number, error: Record<string, unknown>): Promise<number> {
    const rows = await this.sql.rows(
      `UPDATE ${SCHEDULED_TABLE} SET state = 'failed', error = $2, queued_at = NULL, updated_at = now()
        WHERE state = 'sending' AND claimed_at < now() - make_interval(secs => $1 / 1000.0) RETURNING 1`,
      [leaseMs, JSON.stringify(error)],
    );
    return rows.length;
  }
}
