import { Injectable, type OnModuleDestroy } from '@nestjs/common';
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

interface Pace {
  /** Time spent waiting for the client (backpressure pauses do not count against it). */
  clientMs: number;
  lastTick: number;
  lastBytes: number;
  idleFrom: number;
  /** (clientMs, bytes) once per tick, back to one window ago. */
  samples: Array<{ clientMs: number; bytes: number }>;
}

/**
 * Cuts upload bodies that stall (INGEST_IDLE_TIMEOUT_MS) or trickle (less than
 * INGEST_MIN_BYTES_PER_SECOND averaged over INGEST_RATE_WINDOW_SECONDS), as nginx's
 * client_body_timeout and Apache's MinRate do, so a slow client cannot hold an upload slot.
 * One timer serves every upload of the process, and only while there is one.
 */
@Injectable()
export class SalesBodyWatch implements OnModuleDestroy {
  private readonly bodies = new Map<WatchedBody, Pace>();
  private timer: NodeJS.Timeout | undefined;
  private readonly idleMs: number;
  private readonly windowMs: number;
  private readonly minRate: number;
  private readonly tickMs: number;

  constructor(private readonly config: SalesConfig) {
    this.idleMs = config.INGEST_IDLE_TIMEOUT_MS;
    this.windowMs = config.INGEST_RATE_WINDOW_SECONDS * 1000;
    this.minRate = config.INGEST_MIN_BYTES_PER_SECOND;
    this.tickMs = Math.max(25, Math.min(1000, this.idleMs / 4, this.windowMs / 4));
  }

  /** Watches `body` until the returned function is called (or it is cut). */
  watch(body: WatchedBody): () => void {
    const bytes = body.bytesRead();
    this.bodies.set(body, { clientMs: 0, lastTick: Date.now(), lastBytes: bytes, idleFrom: 0, samples: [{ clientMs: 0, bytes }] });
    this.timer ??= setInterval(() => this.tick(), this.tickMs).unref();
    return () => this.forget(body);
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.bodies.clear();
  }

  private forget(body: WatchedBody): void {
    this.bodies.delete(body);
    if (this.bodies.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    const now = Date.now();
    for (const [body, pace] of this.bodies) {
      const elapsed = now - pace.lastTick;
      pace.lastTick = now;
      const bytes = body.bytesRead();
      if (!body.waitingForClient()) {
        // Paused for PostgreSQL: the client is not at fault, and its idle time starts over.
        pace.lastBytes = bytes;
        pace.idleFrom = pace.clientMs;
        continue;
      }
      pace.clientMs += elapsed;
      if (bytes !== pace.lastBytes) {
        pace.lastBytes = bytes;
        pace.idleFrom = pace.clientMs;
      }
      const samples = pace.samples;
      samples.push({ clientMs: pace.clientMs, bytes });
      // Keep the newest sample at least one window old as the base of the average.
      while (samples.length > 1 && samples[1].clientMs <= pace.clientMs - this.windowMs) samples.shift();
      const base = samples[0];
      const span = pace.clientMs - base.clientMs;
      if (pace.clientMs - pace.idleFrom >= this.idleMs) this.cut(body, new SalesBodyTimeoutException(this.idleMs));
      else if (span >= this.windowMs && (bytes - base.bytes) * 1000 < this.minRate * span) {
        this.cut(body, new SalesBodyTooSlowException(this.minRate, this.config.INGEST_RATE_WINDOW_SECONDS));
      }
    }
  }

  private cut(body: WatchedBody, error: AppException): void {
    this.forget(body);
    body.cut(error);
  }
}
