import { Injectable } from '@nestjs/common';
import { isoTimestamp, Sql, type SqlRunner } from '@app/database';
import { START_WINDOW, type WebhookStatus } from './webhook.entity';
import { WebhookTables } from './webhook-tables';

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

/**
 * Runs inside the change's transaction with the webhook before and after it (null for a creation or a deletion),
 * so the caller's audit record commits or rolls back with the change.
 */
export type WebhookChangeHook = (tx: SqlRunner, before: WebhookRecord | null, after: WebhookRecord | null) => Promise<void>;

const NO_HOOK: WebhookChangeHook = () => Promise.resolve();

/** Why `insert` wrote nothing. */
export type InsertRefusal = 'url-taken' | 'limit-reached';

const VIEW = `id, owner, url, events, status, headers, ${isoTimestamp('created_at')}, ${isoTimestamp('updated_at')}`;

/** Registrations (`webhooks`): what owners set, and the health the engine tracks per webhook. */
@Injectable()
export class WebhookRegistrationsRepository {
  private readonly table: string;
  /** Deliveries that are neither finished nor running move to `cancelled` when their webhook goes inactive. */
  private readonly cancelOpen: string;

  constructor(
    private readonly db: Sql,
    tables: WebhookTables,
  ) {
    this.table = tables.webhooks;
    this.cancelOpen = `UPDATE ${tables.deliveries} SET status = 'cancelled', next_attempt_at = NULL
      WHERE webhook_id = $1 AND status IN ('pending', 'retrying') AND queued_at IS NULL`;
  }

  /**
   * Registers the webhook unless the owner already has one with this url, or already has `max` webhooks.
   * The creates of one owner take turns (a transaction-level advisory lock on the owner), so creates
   * racing each other, on any replica, never take the owner past `max`.
   */
  insert(owner: string, row: NewWebhookRow, max: number, hook: WebhookChangeHook = NO_HOOK): Promise<WebhookRecord | InsertRefusal> {
    return this.db.transaction(async (tx) => {
      await tx.rows(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${this.table}:${owner}`]);
      // A statement of its own: its snapshot, taken after the lock, sees the webhooks the previous holder committed.
      const held = await tx.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table} WHERE owner = $1`, [owner]);
      if (held!.n >= max) return 'limit-reached';
      const inserted = await tx.one<WebhookRecord>(
        `INSERT INTO ${this.table} (owner, url, events, status, headers, secret) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (owner, url) DO NOTHING RETURNING ${VIEW}`,
        [owner, row.url, row.events, row.status, row.headers, row.secret],
      );
      if (inserted) await hook(tx, null, inserted);
      return inserted ?? 'url-taken';
    });
  }

  find(owner: string, id: string): Promise<WebhookRecord | null> {
    return this.db.one<WebhookRecord>(`SELECT ${VIEW} FROM ${this.table} WHERE owner = $1 AND id = $2`, [owner, id]);
  }

  list(owner: string, limit: number, offset: number): Promise<{ rows: WebhookRecord[]; total: number }> {
    return this.db.page<WebhookRecord>({ columns: VIEW, source: `${this.table} WHERE owner = $1`, orderBy: 'created_at, id', params: [owner] }, limit, offset);
  }

  /**
   * Applies the changes. Going inactive cancels what is waiting; an owner's activation
   * forgets why the engine disabled it and starts a fresh failure count. A new url, or an
   * inactive webhook made active, starts again from the first delivery window: that
   * receiver has earned nothing yet. Throws 23505 when the url is another webhook's.
   */
  update(owner: string, id: string, changes: WebhookChanges, hook: WebhookChangeHook = NO_HOOK): Promise<WebhookRecord | null> {
    return this.db.transaction(async (tx) => {
      const before = await tx.one<WebhookRecord>(`SELECT ${VIEW} FROM ${this.table} WHERE owner = $1 AND id = $2 FOR UPDATE`, [owner, id]);
      if (!before) return null;
      const row = await tx.one<WebhookRecord>(
        `UPDATE ${this.table} SET url = COALESCE($3, url), events = COALESCE($4, events), status = COALESCE($5, status),
           headers = COALESCE($6, headers),
           disabled_reason = CASE WHEN $5 = 'active' THEN NULL ELSE disabled_reason END,
           failing_since = CASE WHEN $5 = 'active' THEN NULL ELSE failing_since END,
           delivery_window = CASE WHEN $3 <> url OR ($5 = 'active' AND status = 'inactive') THEN ${START_WINDOW} ELSE delivery_window END,
           updated_at = now()
         WHERE owner = $1 AND id = $2 RETURNING ${VIEW}`,
        [owner, id, changes.url ?? null, changes.events ?? null, changes.status ?? null, changes.headers ?? null],
      );
      if (row?.status === 'inactive') await tx.rows(this.cancelOpen, [id]);
      if (row) await hook(tx, before, row);
      return row;
    });
  }

  delete(owner: string, id: string, hook: WebhookChangeHook = NO_HOOK): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const row = await tx.one<WebhookRecord>(`DELETE FROM ${this.table} WHERE owner = $1 AND id = $2 RETURNING ${VIEW}`, [owner, id]);
      if (row) await hook(tx, row, null);
      return row !== null;
    });
  }

  /** Installs a new (encrypted) secret; the current one keeps signing for `graceSeconds`. */
  rotate(
    owner: string,
    id: string,
    secret: string,
    graceSeconds: number,
    hook: WebhookChangeHook = NO_HOOK,
  ): Promise<(WebhookRecord & { previous_secret_expires_at: string }) | null> {
    return this.db.transaction(async (tx) => {
      const row = await tx.one<WebhookRecord & { previous_secret_expires_at: string }>(
        `UPDATE ${this.table} SET previous_secret = secret, secret = $3,
         previous_secret_expires_at = now() + make_interval(secs => $4), updated_at = now()
       WHERE owner = $1 AND id = $2 RETURNING ${VIEW}, ${isoTimestamp('previous_secret_expires_at')}`,
        [owner, id, secret, graceSeconds],
      );
      if (row) await hook(tx, row, row);
      return row;
    });
  }

  /** The event types the owner's active webhooks subscribe to. */
  async subscribedEvents(owner: string): Promise<string[]> {
    const rows = await this.db.rows<{ event: string }>(`SELECT DISTINCT unnest(events) AS event FROM ${this.table} WHERE owner = $1 AND status = 'active'`, [
      owner,
    ]);
    return rows.map((r) => r.event);
  }

  target(id: string): Promise<StoredTarget | null> {
    return this.db.one<StoredTarget>(
      `SELECT id, owner, url, status, headers, failing_since IS NOT NULL AS failing,
         CASE WHEN secret IS NULL THEN ARRAY[]::text[]
              WHEN previous_secret IS NOT NULL AND previous_secret_expires_at > now() THEN ARRAY[secret, previous_secret]
              ELSE ARRAY[secret] END AS secrets
       FROM ${this.table} WHERE id = $1`,
      [id],
    );
  }

  /** Starts (or continues) a run of failures; returns how long it has lasted, in seconds. */
  async markFailing(id: string): Promise<number> {
    const row = await this.db.one<{ seconds: number }>(
      `UPDATE ${this.table} SET failing_since = COALESCE(failing_since, now())
       WHERE id = $1 RETURNING extract(epoch FROM now() - failing_since)::float8 AS seconds`,
      [id],
    );
    return row?.seconds ?? 0;
  }

  /** Active webhooks in a run of failures, and the longest run's length in seconds (0 when none fails). */
  async failingRuns(): Promise<{ failing: number; longest_seconds: number }> {
    const row = await this.db.one<{ failing: number; longest_seconds: number }>(
      `SELECT count(*)::int AS failing, COALESCE(extract(epoch FROM now() - min(failing_since)), 0)::float8 AS longest_seconds
       FROM ${this.table} WHERE failing_since IS NOT NULL AND status = 'active'`,
    );
    return row ?? { failing: 0, longest_seconds: 0 };
  }

  async clearFailing(id: string): Promise<void> {
    await this.db.rows(`UPDATE ${this.table} SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, [id]);
  }

  /** Sets the webhook inactive on the engine's own account, and cancels what waits for it. */
  disable(id: string, reason: string): Promise<void> {
    return this.db.transaction(async (tx) => {
      await tx.rows(`UPDATE ${this.table} SET status = 'inactive', disabled_reason = $2, updated_at = now() WHERE id = $1`, [id, reason.slice(0, 255)]);
      await tx.rows(this.cancelOpen, [id]);
    });
  }
}
