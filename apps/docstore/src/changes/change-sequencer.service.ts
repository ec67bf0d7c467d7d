import { Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { DAY_SECONDS, Pruner } from '@app/database';
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
  private running: Promise<void> | null = null;
  private again = false;
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
    await this.running;
  }

  recorded(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => (this.running = null));
  }

  /** Numbers what is pending, batch after batch; resolves once nothing was left when it looked. */
  async settle(): Promise<void> {
    while (this.running) await this.running;
    this.recorded();
    await this.current();
  }

  /** The run in progress, if any. */
  private current(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Marks changes past retention as gone now (the sweep does it every minute). */
  expire(): Promise<void> {
    this.lastExpire = Date.now();
    return this.changes.expire(this.config.CHANGES_RETENTION_DAYS);
  }

  private async run(): Promise<void> {
    do {
      this.again = false;
      try {
        const batch = await this.changes.sequence();
        this.notifier.announce(batch);
        if (batch.to - batch.from + 1n >= BigInt(SEQUENCE_BATCH)) this.again = true;
      } catch (error) {
        this.failure.warn(`numbering changes: ${(error as Error).message}`);
        return;
      }
    } while (this.again && !this.stopping);
  }

  private async sweep(): Promise<void> {
    try {
      if (await this.changes.hasPending()) this.recorded();
      await this.running;
      this.notifier.moved(await this.changes.lastSeq());
      if (Date.now() - this.lastExpire >= EXPIRE_EVERY_MS) await this.expire();
    } catch (error) {
      this.failure.warn(`sweeping the change feed: ${(error as Error).message}`);
    }
  }
}
