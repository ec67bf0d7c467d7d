import { Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DatabaseConfig } from './database.config';
import { Sql } from './sql.service';

/**
 * What one table keeps. A row is expired when `expired` holds; `expired` may use `cutoff`, the
 * moment `keepSeconds` before now by PostgreSQL's clock (e.g. `finished_at < cutoff`).
 */
export interface RetentionRule {
  /** Schema-qualified table, e.g. `ingest_push.push_items`. */
  table: string;
  /** SQL condition on the table's rows (unaliased) selecting those past their retention. */
  expired: string;
  /** Read at every prune, so a rule can follow a setting. */
  keepSeconds: () => number;
}

export const DAY_SECONDS = 86_400;

/**
 * Deletes rows past their retention, for every rule registered by the app's features, at start and every
 * PRUNE_INTERVAL_SECONDS. Each batch of at most PRUNE_BATCH_ROWS rows is one short transaction that deletes by
 * row address (no long lock, no long transaction), under a transaction-scoped advisory lock per table: replicas
 * take turns, and one that finds the lock taken leaves that table to the replica holding it until the next round.
 * Rules run in registration order, so a child table's rule registered first empties what its parent's would cascade.
 */
@Injectable()
export class Pruner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Pruner');
  private readonly rules: RetentionRule[] = [];
  private readonly batchRows: number;
  private readonly intervalMs: number;
  private timer?: NodeJS.Timeout;
  private running: Promise<number> = Promise.resolve(0);
  private stopping = false;

  constructor(
    private readonly sql: Sql,
    @Optional() config?: DatabaseConfig,
  ) {
    this.batchRows = config?.PRUNE_BATCH_ROWS ?? 1000;
    this.intervalMs = (config?.PRUNE_INTERVAL_SECONDS ?? 600) * 1000;
  }

  register(...rules: RetentionRule[]): void {
    this.rules.push(...rules);
  }

  onApplicationBootstrap(): void {
    if (this.rules.length === 0 || this.intervalMs === 0) return;
    this.timer = setInterval(() => void this.pruneAll(), this.intervalMs).unref();
    void this.pruneAll();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    // A prune stuck on a database that went away must not hold the shutdown: wait a bounded time.
    await Promise.race([this.running, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }

  /** One round over every rule (after the one running, if any); resolves with the rows deleted. Never rejects. */
  pruneAll(): Promise<number> {
    const round = this.running.then(async () => {
      let total = 0;
      for (const rule of this.rules) {
        try {
          total += await this.prune(rule);
        } catch (error) {
          this.logger.warn(`pruning ${rule.table}: ${(error as Error).message}`);
        }
      }
      return total;
    });
    this.running = round;
    return round;
  }

  /** Deletes `rule`'s expired rows, batch after batch, until none is left or another replica holds the table. */
  async prune(rule: RetentionRule): Promise<number> {
    const statement = `DELETE FROM ${rule.table} WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM ${rule.table}, (SELECT now() - make_interval(secs => $1) AS cutoff) AS retention
         WHERE ${rule.expired} LIMIT $2))`;
    let total = 0;
    while (!this.stopping) {
      const deleted = await this.sql.transaction(async (tx) => {
        const lock = await tx.one<{ ours: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ours', [`prune:${rule.table}`]);
        if (!lock!.ours) return null;
        return (await tx.rows(`${statement} RETURNING 1`, [rule.keepSeconds(), this.batchRows])).length;
      });
      if (deleted === null) break;
      total += deleted;
      if (deleted < this.batchRows) break;
    }
    return total;
  }
}
