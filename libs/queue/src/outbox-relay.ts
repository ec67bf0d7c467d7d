import { Logger } from '@nestjs/common';
import { CoalescedRun, type Sql } from '@app/database';
import { ThrottledWarning } from '@app/observability';
import { isLaneJob, toLaneJobs, type LaneGrouping, type LaneItem, type LaneJob } from './lane-job';
import type { QueueProducer } from './queue-producer';

/** Longest `stop` waits for a run under way. */
const STOP_WAIT_MS = 5_000;
/** Above the producer's 5 s command timeout, so only a claim whose process stopped running reaches it. */
const CLAIM_IDLE_LIMIT_MS = 15_000;

/**
 * The PostgreSQL outbox -> BullMQ relay. PostgreSQL is the record of work to do; Redis
 * only carries what is due. A service writes outbox rows in its own transactions; the
 * relay moves due rows into a queue and marks them queued, in one transaction (if Redis
 * refuses the jobs, nothing is marked). Whoever processes a job clears the mark when it
 * records the outcome, and sets the next due time if there is more to do.
 *
 * Contract of an outbox table (any name, in any schema):
 *   - `id`               primary key (uuid, bigint or text);
 *   - `next_attempt_at`  timestamptz, when the row is next due; NULL when nothing is to do;
 *   - `queued_at`        timestamptz, set by the relay while a job carries the row, NULL otherwise;
 *   - a fairness key column (`keyColumn`): each key has at most `perKey` rows queued at a
 *     time (or its own `cap`, if lower, with `keyCaps`), so one busy key never fills the
 *     queue in front of the others.
 *   - optionally an owner per key (`perOwner`, `keys` returning `owner`): a key's owner has at most
 *     `perOwner` rows queued across all of its keys, and each claim takes turns between owners.
 * Suggested indexes: (key, next_attempt_at) WHERE queued_at IS NULL AND next_attempt_at IS NOT NULL,
 * and (key, queued_at) WHERE queued_at IS NOT NULL.
 *
 * What the relay does:
 *   - claims due rows with FOR UPDATE SKIP LOCKED (replicas never take the same rows), oldest
 *     due first, at most `perKey` queued per key and `batch` per run; the claims of all replicas
 *     take turns (a transaction-level advisory lock on the table's name), so the per-key cap holds
 *     across replicas, not just within one;
 *   - with owners, claims round-robin: every owner's oldest due row first, then every owner's second,
 *     and so on, up to `batch`; so an owner with one due row is served in the next run, whatever
 *     another owner's backlog (which `perOwner` keeps from filling the queue, across replicas);
 *   - turns them into jobs (lane-job.ts): grouped by the owner's key, `itemsPerJob` to a job, each
 *     named by the attempt it carries, so the same attempt is never queued twice;
 *   - runs when asked (`kick`, coalesced), every `intervalMs`, and again at once while runs are full;
 *   - re-queues lost jobs: rows marked queued whose job is no longer in the queue (Redis
 *     restarted empty, or a job failed for good) are released and relayed again. It checks
 *     at start, whenever the producer's Redis connection comes back, and every `sweepMs`.
 *
 * Apps declare an outbox as a lane (queue-lane.ts), which builds its relay, producer and worker.
 */
export interface OutboxSpec<Row, Item extends LaneItem> extends LaneGrouping<Row, Item> {
  /** The quoted, schema-qualified table. */
  table: string;
  /** Column of the fairness key. */
  keyColumn: string;
  /** SQL selecting the keys that may be relayed now, as column `key` (e.g. active webhooks). */
  keys: string;
  /** Extra condition on the rows, over alias `t` (e.g. `t.platform = 'ios'` for a per-platform relay); the caps count only such rows. */
  where?: string;
  /** Columns the claim returns, over alias `t`: what `key` and `item` need. */
  returning: string;
  perKey: number;
  /**
   * When true, `keys` also returns a column `cap`: that key's own limit at the moment (a
   * webhook's delivery window), applied under `perKey`.
   */
  keyCaps?: boolean;
  /**
   * When set, `keys` also returns a column `owner` (a key's owner, e.g. the client that registered a
   * webhook): each owner has at most this many rows queued across all of its keys, and each claim
   * takes turns between owners (see above).
   */
  perOwner?: number;
  batch: number;
  intervalMs: number;
  sweepMs: number;
  /**
   * Longest a claim's transaction may sit idle (waiting for the queue) before PostgreSQL ends it,
   * rolling back its marks and releasing its turn (default CLAIM_IDLE_LIMIT_MS): a replica frozen
   * mid-claim never stops the others' relays for longer.
   */
  claimIdleLimitMs?: number;
}

/**
 * Pause before a claim that follows a full one: under load every write and every finished job asks for a run, and a
 * short pause lets those requests gather, so each run (one transaction) moves many rows, not a few.
 */
const RERUN_PAUSE_MS = 5;

export class OutboxRelay<Row, Item extends LaneItem> {
  private readonly logger: Logger;
  private readonly failure: ThrottledWarning;
  private stopped = true;
  /** Claims: one at a time, requests coalesced, again at once while a claim moves a full batch. */
  private readonly runs = new CoalescedRun(() => this.pass(), { active: () => !this.stopped, pauseMs: RERUN_PAUSE_MS });
  private timers: NodeJS.Timeout[] = [];
  private readonly claimSql: string;
  private readonly where: string;

  constructor(
    private readonly db: Sql,
    private readonly producer: QueueProducer<LaneJob<Item>>,
    private readonly spec: OutboxSpec<Row, Item>,
  ) {
    this.logger = new Logger(`Outbox ${producer.name}`);
    this.failure = new ThrottledWarning(`Outbox ${producer.name}`);
    this.where = spec.where ? ` AND (${spec.where})` : '';
    this.claimSql = spec.perOwner === undefined ? this.keyClaim() : this.ownerClaim();
  }

  /**
   * The rows of a key queued now, of this relay's rows only (`where`: a per-platform relay counts its own platform).
   * Over alias `t`, as `where` is written; the inner alias hides an outer one.
   */
  private queuedCount(keyExpr: string): string {
    return `SELECT count(*) FROM ${this.spec.table} t WHERE t.${this.spec.keyColumn} = ${keyExpr} AND t.queued_at IS NOT NULL${this.where}`;
  }

  /** Per key: each key's oldest due rows, up to its room. */
  private keyClaim(): string {
    const { table, keyColumn: key, keys, returning } = this.spec;
    return `WITH picked AS (
        SELECT c.id FROM (${keys}) k
        CROSS JOIN LATERAL (
          SELECT t.id FROM ${table} t
          WHERE t.${key} = k.key AND t.queued_at IS NULL AND t.next_attempt_at <= now()${this.where}
          ORDER BY t.next_attempt_at
          LIMIT GREATEST(0, ${this.spec.keyCaps ? 'LEAST($1, k.cap)' : '$1'} - (${this.queuedCount('k.key')}))
          FOR UPDATE SKIP LOCKED
        ) c
        LIMIT $2
      )
      UPDATE ${table} t SET queued_at = now() FROM picked WHERE t.id = picked.id
      RETURNING ${returning}`;
  }

  /**
   * Per owner, round-robin: each key's due rows up to its room and its owner's ($3), numbered per owner
   * after what the owner already has queued (its turn), taken by turn. The lock is taken last, on the
   * rows chosen, with the conditions checked again on the row as committed (a row changed meanwhile).
   */
  private ownerClaim(): string {
    const { table, keyColumn: key, keys, returning } = this.spec;
    return `WITH lane_keys AS MATERIALIZED (
        SELECT k.key, k.owner, ${this.spec.keyCaps ? 'LEAST($1::int, k.cap)' : '$1::int'} AS cap,
          (${this.queuedCount('k.key')})::int AS queued
        FROM (${keys}) k
      ), lane_owners AS (
        SELECT owner, sum(queued)::int AS queued FROM lane_keys GROUP BY owner
      ), due AS (
        SELECT c.id, c.next_attempt_at, k.owner, o.queued AS owner_queued
        FROM lane_keys k JOIN lane_owners o ON o.owner = k.owner
        CROSS JOIN LATERAL (
          SELECT t.id, t.next_attempt_at FROM ${table} t
          WHERE t.${key} = k.key AND t.queued_at IS NULL AND t.next_attempt_at <= now()${this.where}
          ORDER BY t.next_attempt_at
          LIMIT GREATEST(0, LEAST(k.cap - k.queued, $3::int - o.queued))
        ) c
      ), turns AS (
        SELECT id, next_attempt_at, owner_queued + row_number() OVER (PARTITION BY owner ORDER BY next_attempt_at, id) AS turn FROM due
      ), picked AS (
        SELECT t.id FROM ${table} t JOIN turns ON turns.id = t.id
        WHERE turns.turn <= $3::int AND t.queued_at IS NULL AND t.next_attempt_at <= now()
        ORDER BY turns.turn, turns.next_attempt_at
        LIMIT $2
        FOR UPDATE OF t SKIP LOCKED
      )
      UPDATE ${table} t SET queued_at = now() FROM picked WHERE t.id = picked.id
      RETURNING ${returning}`;
  }

  start(): void {
    this.stopped = false;
    this.timers.push(setInterval(() => this.kick(), this.spec.intervalMs).unref());
    this.timers.push(setInterval(() => void this.requeueLost(), this.spec.sweepMs).unref());
    // At start (once the queue answers: a check against a Redis not yet connected would find nothing)
    // and whenever Redis comes back, perhaps restarted empty.
    this.producer.onReady(() => {
      if (!this.stopped) void this.requeueLost();
    });
    this.kick();
  }

  /**
   * Stops relaying and waits for a run under way, at most STOP_WAIT_MS: a run stuck on a
   * database that went away never commits, so its rows stay in the outbox for the next start.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timers.forEach(clearInterval);
    this.timers = [];
    await this.runs.finished(STOP_WAIT_MS);
  }

  /** Asks for a run; runs requested while one is going coalesce into one more. */
  kick(): void {
    this.runs.request();
  }

  /** Resolves when everything due now has been handed to the queue (for tests and shutdown). */
  async drain(): Promise<void> {
    if (!this.stopped) return this.runs.settle();
    await this.runs.finished();
    await this.claim();
  }

  /**
   * Marks due rows as queued and adds their jobs, in one transaction. `enqueue` replaces
   * adding to the producer (tests use it to act inside the transaction). Returns the rows moved.
   */
  claim(enqueue: (rows: Row[]) => Promise<void> = (rows) => this.producer.add(toLaneJobs(rows, this.spec))): Promise<number> {
    return this.db.transaction(async (tx) => {
      // One claim of this outbox at a time across replicas: a claim counts the rows queued per key
      // in its own snapshot, which cannot see the rows another claim has marked but not committed.
      // Its turn ends with its transaction, at the latest when it has been idle for the limit.
      await tx.rows(`SELECT set_config('idle_in_transaction_session_timeout', $2, true), pg_advisory_xact_lock(hashtextextended($1, 0))`, [
        this.spec.table,
        `${this.spec.claimIdleLimitMs ?? CLAIM_IDLE_LIMIT_MS}ms`,
      ]);
      const params = this.spec.perOwner === undefined ? [this.spec.perKey, this.spec.batch] : [this.spec.perKey, this.spec.batch, this.spec.perOwner];
      const rows = await tx.rows<Row>(this.claimSql, params);
      if (rows.length > 0) await enqueue(rows);
      return rows.length;
    });
  }

  /**
   * Releases rows marked queued whose job the queue no longer has, and relays them again.
   * Only rows committed as queued before the queue is read are considered (their jobs were
   * added before that commit), and a row is released only if it is still the same claim,
   * so a job that finished meanwhile is never sent again. Returns how many were released.
   */
  async requeueLost(): Promise<number> {
    try {
      const queued = await this.db.rows<{ id: string; at: string }>(
        `SELECT t.id::text AS id, t.queued_at::text AS at FROM ${this.spec.table} t WHERE t.queued_at IS NOT NULL${this.where}`,
      );
      if (queued.length === 0) return 0;
      const live = new Set<string>();
      for await (const data of this.producer.liveJobs()) {
        // A job of an older version's shape names no rows this can read: look again once such jobs are gone.
        if (!isLaneJob(data)) return 0;
        for (const item of data.items) live.add(item.id);
      }
      const lost = queued.filter((row) => !live.has(row.id));
      if (lost.length === 0) return 0;
      const released = await this.db.rows(
        `UPDATE ${this.spec.table} t SET queued_at = NULL FROM unnest($1::text[], $2::timestamptz[]) AS x(id, at)
         WHERE t.queued_at IS NOT NULL AND t.queued_at = x.at AND t.id::text = x.id RETURNING 1`,
        [lost.map((r) => r.id), lost.map((r) => r.at)],
      );
      if (released.length > 0) {
        this.logger.warn(`queued ${released.length} rows again whose jobs were lost`);
        this.kick();
      }
      return released.length;
    } catch (error) {
      this.warn(error as Error);
      return 0;
    }
  }

  /** One claim; true when it moved a full batch (more may be due). */
  private async pass(): Promise<boolean> {
    try {
      return (await this.claim()) === this.spec.batch;
    } catch (error) {
      this.warn(error as Error);
      return false;
    }
  }

  private warn(error: Error): void {
    this.failure.warn(`relay: ${error.message}; the work waits in the outbox`);
  }
}
