import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CoalescedRun } from '@app/database';
import { SalesConfig } from './sales.config';
import { SalesRollupsRepository, type DirtyDay, type DirtyPeriod } from './sales-rollups.repository';

/** Dirty days read per query. */
const BATCH = 100;
/** Days of one account rebuilt in one transaction (one statement over their lines). */
const DAYS_PER_REBUILD = 7;

/**
 * Keeps the rollups up to date after uploads commit: rebuilds each dirty day from its lines, then the blocks of each
 * dirty month from its days (and those of months whose blocks are missing), one per transaction. It looks every
 * SALES_ROLLUP_INTERVAL_MS, and SALES_ROLLUP_QUIET_MS after each upload of this process ends; an account's days
 * wait until none of its uploads has run for SALES_ROLLUP_QUIET_MS, so a file sent in parts is summed once. Every
 * replica runs one; a day is rebuilt by one of them at a time.
 */
@Injectable()
export class SalesRollupRefresher implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Sales');
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Passes over the dirty days: one at a time, wakes during one coalesced into one more. */
  private readonly runs = new CoalescedRun(
    () =>
      this.drain()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'dirty sales days not read'))
        .then(() => false),
    { active: () => !this.stopped },
  );

  constructor(
    private readonly repository: SalesRollupsRepository,
    private readonly config: SalesConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.wake(), this.config.SALES_ROLLUP_INTERVAL_MS).unref();
    this.wake();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.runs.finished();
  }

  /** Rebuilds the dirty days now (or right after the pass under way). */
  private wake(): void {
    this.runs.request();
  }

  /** An upload ended: its days are rebuilt once its account has been quiet for SALES_ROLLUP_QUIET_MS. */
  uploadEnded(): void {
    setTimeout(() => this.wake(), this.config.SALES_ROLLUP_QUIET_MS + 100).unref();
  }

  private async drain(): Promise<void> {
    await this.repository.markMonthsWithoutBlocks();
    for (;;) {
      const days = await this.repository.dirtyDays(BATCH, this.config.SALES_ROLLUP_QUIET_MS);
      let rebuilt = 0;
      for (const { accountId, period, days: some } of chunks(days)) {
        if (this.stopped) return;
        try {
          rebuilt += await this.repository.rebuild(accountId, period, some);
        } catch (error) {
          this.logger.warn({ err: error, accountId, period, days: some }, 'sales rollups not rebuilt');
        }
      }
      // Look again while rebuilding gets somewhere (a day's rebuild dirties its month). None rebuilt: the rest are
      // another replica's, or failing; the timer comes back.
      if (rebuilt === 0) return;
    }
  }
}

/** Dirty days as rebuilds: up to DAYS_PER_REBUILD days of one account each, a month alone. */
function chunks(days: DirtyDay[]): Array<{ accountId: string; period: DirtyPeriod; days: string[] }> {
  const out: Array<{ accountId: string; period: DirtyPeriod; days: string[] }> = [];
  for (const d of days) {
    const last = out[out.length - 1];
    if (last?.accountId === d.account_id && last.period === 'day' && d.period === 'day' && last.days.length < DAYS_PER_REBUILD) last.days.push(d.day);
    else out.push({ accountId: d.account_id, period: d.period, days: [d.day] });
  }
  return out;
}
