import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { IngestionStage } from './sales-ingestion.entity';
import { SalesConfig } from './sales.config';
import { SalesRepository, type IngestionCounts } from './sales.repository';

/** An ingestion this process runs, as its heartbeat sees it. */
export interface RunningIngestion {
  readonly id: string;
  stage(): IngestionStage;
  counts(): IngestionCounts;
  /** Ends the run as cancelled (DELETE …/ingestions/{id}, from any process). */
  cancel(): void;
}

export const INTERRUPTED = 'The upload was interrupted (the service stopped); nothing was kept.';

/**
 * What the ingestions of this process share with the others, through PostgreSQL, on one
 * timer: every INGEST_PROGRESS_INTERVAL_MS one statement writes each run's progress, stage
 * and heartbeat and reads back which were asked to cancel. At start and every half
 * INGEST_STALE_AFTER_SECONDS, runs whose heartbeat is older than that (their process was
 * killed) are closed as failed.
 */
@Injectable()
export class SalesHeartbeat implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Sales');
  private readonly runs = new Map<string, RunningIngestion>();
  private beatTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | null = null;

  constructor(
    private readonly repository: SalesRepository,
    private readonly config: SalesConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.sweep();
    this.sweepTimer = setInterval(() => void this.sweep(), (this.config.INGEST_STALE_AFTER_SECONDS * 1000) / 2).unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.sweepTimer);
    clearInterval(this.beatTimer);
    this.beatTimer = undefined;
    await this.beating;
  }

  add(run: RunningIngestion): void {
    this.runs.set(run.id, run);
    this.beatTimer ??= setInterval(() => void this.beat(), this.config.INGEST_PROGRESS_INTERVAL_MS).unref();
  }

  /** Forgets a run; resolves once no heartbeat of it is in flight (so its last state is its own). */
  async remove(id: string): Promise<void> {
    this.runs.delete(id);
    if (this.runs.size === 0) {
      clearInterval(this.beatTimer);
      this.beatTimer = undefined;
    }
    await this.beating;
  }

  /** Cancels run `id` at once when this process runs it; another process sees the request with its next beat. */
  cancelHere(id: string): void {
    this.runs.get(id)?.cancel();
  }

  private beat(): Promise<void> {
    if (this.beating || this.runs.size === 0) return this.beating ?? Promise.resolve();
    const runs = [...this.runs.values()];
    this.beating = this.repository
      .beat(runs.map((r) => ({ id: r.id, stage: r.stage(), counts: r.counts() })))
      .then((cancelled) => {
        for (const id of cancelled) this.runs.get(id)?.cancel();
      })
      .catch((error: unknown) => this.logger.warn({ err: error, ingestions: runs.map((r) => r.id) }, 'heartbeat not recorded'))
      .finally(() => (this.beating = null));
    return this.beating;
  }

  private async sweep(): Promise<void> {
    try {
      const closed = await this.repository.closeStale(this.config.INGEST_STALE_AFTER_SECONDS, INTERRUPTED);
      if (closed.length > 0) this.logger.warn({ ingestions: closed }, 'closed ingestions whose process stopped (stale heartbeat)');
    } catch (error) {
      this.logger.warn({ err: error }, 'stale ingestions not swept');
    }
  }
}
