import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { BodyDeadlines } from '@app/auth';
import type { AppException } from '@app/errors';
import { SalesConfig } from './sales.config';
import { SalesBodyTimeoutException, SalesBodyTooSlowException } from './sales.exception';

/** One upload's body, as the watch sees it. */
export interface WatchedBody {
  /** Bytes read from the client so far (the socket's count: reading it consumes nothing). */
  bytesRead(): number;
  /** Whether the upload waits for the client now, rather than being paused by PostgreSQL's backpressure. */
  waitingForClient(): boolean;
  /** Called once, when the body stalls for the idle timeout or arrives slower than the minimum rate. */
  cut(error: AppException): void;
}

/**
 * Cuts upload bodies that stall (INGEST_IDLE_TIMEOUT_MS) or trickle (less than
 * INGEST_MIN_BYTES_PER_SECOND averaged over INGEST_RATE_WINDOW_SECONDS), so a slow client
 * cannot hold an upload slot: the request gate's body watch (BodyDeadlines) with the
 * ingestion's settings and answers.
 */
@Injectable()
export class SalesBodyWatch implements OnModuleDestroy {
  private readonly deadlines: BodyDeadlines;

  constructor(private readonly config: SalesConfig) {
    this.deadlines = new BodyDeadlines({
      windowMs: config.INGEST_RATE_WINDOW_SECONDS * 1000,
      minBytesPerSecond: config.INGEST_MIN_BYTES_PER_SECOND,
      idleMs: config.INGEST_IDLE_TIMEOUT_MS,
    });
  }

  /** Watches `body` until the returned function is called (or it is cut). */
  watch(body: WatchedBody): () => void {
    const { INGEST_IDLE_TIMEOUT_MS: idleMs, INGEST_MIN_BYTES_PER_SECOND: rate, INGEST_RATE_WINDOW_SECONDS: window } = this.config;
    return this.deadlines.watch({
      bytesRead: () => body.bytesRead(),
      waitingForClient: () => body.waitingForClient(),
      cut: (reason) => body.cut(reason === 'idle' ? new SalesBodyTimeoutException(idleMs) : new SalesBodyTooSlowException(rate, window)),
    });
  }

  onModuleDestroy(): void {
    this.deadlines.stop();
  }
}
