import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { CoalescedRun, DAY_SECONDS, Pruner } from '@app/database';
import { ThrottledWarning } from '@app/observability';
import { DocumentChangeSignal } from '../documents/document-changes';
import { ChangeNotifier } from './change-notifier.service';
import { ChangesConfig } from './changes.config';
import { ChangesRepository, SEQUENCE_BATCH } from './changes.repository';

/** How often the retention mark moves. */
const EXPIRE_EVERY_MS = 60_000;

/**
 * Gives committed changes their cursors (ChangesRepository.sequence) and announces them. A write
 * calls `recorded()` after it committed; runs are coalesced, one at a time per replica (replicas
 * take turns in PostgreSQL). Every CHANGES_SWEEP_MS each replica also numbers changes a writer
 * left (it died after commit) and tells the notifier where the feed is.
 */
@Injectable()
export class ChangeSequencer extends DocumentChangeSignal implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly failure = new ThrottledWarning('ChangeSequencer');
  /** Numbering runs: one at a time, requests coalesced, again at once while a run numbers a full batch. */
  private readonly runs = new CoalescedRun(() => this.run(), { active: () => !this.stopping });
  private timer?: NodeJS.Timeout;
  private lastExpire = 0;
  private stopping = false;

  constructor(
    private readonly changes: ChangesRepository,
    private readonly notifier: ChangeNotifier,
    private readonly config: ChangesConfig,
    pruner: Pruner,
  ) {
    super();
    pruner.register({ table: 'docstore.changes', expired: ChangesRepository.EXPIRED, keepSeconds: () => config.CHANGES_RETENTION_DAYS * DAY_SECONDS });
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.CHANGES_SWEEP_MS).unref();
    void this.sweep();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.runs.finished();
  }

  recorded(): void {
    this.runs.request();
  }

  /** Numbers what is pending, batch after batch; resolves once nothing was left when it looked. */
  settle(): Promise<void> {
    return this.runs.settle();
  }

  /** Marks changes past retention as gone now (the sweep does it every minute). */
  expire(): Promise<void> {
    this.lastExpire = Date.now();
    return this.changes.expire(this.config.CHANGES_RETENTION_DAYS);
  }

  /** Numbers one batch and announces it; true when the batch was full (more may be pending). */
  private async run(): Promise<boolean> {
    try {
      const batch = await this.changes.sequence();
      this.notifier.announce(batch);
      return batch.to - batch.from + 1n >= BigInt(SEQUENCE_BATCH);
    } catch (error) {
      this.failure.warn(`numbering changes: ${(error as Error).message}`);
      return false;
    }
  }

  private async sweep(): Promise<void> {
    try {
      if (await this.changes.hasPending()) this.recorded();
      await this.runs.finished();
      this.notifier.moved(await this.changes.lastSeq());
      if (Date.now() - this.lastExpire >= EXPIRE_EVERY_MS) await this.expire();
    } catch (error) {
      this.failure.warn(`sweeping the change feed: ${(error as Error).message}`);
    }
  }
}
