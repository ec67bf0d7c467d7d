/** Why a body was cut: nothing came for the idle time, too little over a window, or it took longer than allowed in all. */
export type BodyCutReason = 'idle' | 'slow' | 'overtime';

/** One request body, as the watch sees it. */
export interface WatchedBody {
  /** Bytes read from the client so far (a socket's count: reading it consumes nothing). */
  bytesRead(): number;
  /** Whether the reader waits for the client now, rather than pausing it (backpressure); always when left out. */
  waitingForClient?(): boolean;
  /** Called once, when the body breaks the rule. */
  cut(reason: BodyCutReason): void;
}

export interface BodyDeadlineRule {
  /** The window the rate is averaged over, in ms; the first rate check comes after one window. */
  windowMs: number;
  /** Bytes per second a body must average over every window. */
  minBytesPerSecond: number;
  /** A body that brings nothing for this long is cut (left out: the rate check alone, at most one window). */
  idleMs?: number;
  /** The longest a body may take in all, however fast it is (left out: no cap). */
  maxMs?: number;
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
 * The one watch over request bodies in flight (JSON bodies in the gate, sales uploads):
 * a body must average `minBytesPerSecond` over every `windowMs`, may stall at most
 * `idleMs`, and may take at most `maxMs` in all, as nginx's client_body_timeout and
 * Apache mod_reqtimeout's `body=timeout-maxtimeout,MinRate` do. A rate over a sliding
 * window, not a deadline extended per byte received: a body that sends megabytes and then
 * stalls earns no credit beyond one window. Time the reader pauses the client does not
 * count. One timer serves every body of the watch, and only while there is one.
 */
export class BodyDeadlines {
  private readonly bodies = new Map<WatchedBody, Pace>();
  private timer: NodeJS.Timeout | undefined;
  private readonly tickMs: number;

  constructor(private readonly rule: BodyDeadlineRule) {
    this.tickMs = Math.max(25, Math.min(500, rule.windowMs / 4, (rule.idleMs ?? rule.windowMs) / 4));
  }

  /** The longest a body that stops sending lives after its last byte: the first of idle time and window, plus one check. */
  get stalledBoundMs(): number {
    return Math.min(this.rule.idleMs ?? Number.POSITIVE_INFINITY, this.rule.windowMs) + this.tickMs;
  }

  /** Watches `body` until the returned function is called (or it is cut). */
  watch(body: WatchedBody): () => void {
    const bytes = body.bytesRead();
    this.bodies.set(body, { clientMs: 0, lastTick: Date.now(), lastBytes: bytes, idleFrom: 0, samples: [{ clientMs: 0, bytes }] });
    this.timer ??= setInterval(() => this.tick(), this.tickMs).unref();
    return () => this.forget(body);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.bodies.clear();
  }

  private forget(body: WatchedBody): void {
    this.bodies.delete(body);
    if (this.bodies.size === 0) this.stop();
  }

  private tick(): void {
    const now = Date.now();
    const { windowMs, minBytesPerSecond, idleMs, maxMs } = this.rule;
    for (const [body, pace] of this.bodies) {
      const elapsed = now - pace.lastTick;
      pace.lastTick = now;
      const bytes = body.bytesRead();
      if (body.waitingForClient?.() === false) {
        // Paused by the reader: the client is not at fault, and its idle time starts over.
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
      while (samples.length > 1 && samples[1].clientMs <= pace.clientMs - windowMs) samples.shift();
      const base = samples[0];
      const span = pace.clientMs - base.clientMs;
      if (idleMs !== undefined && pace.clientMs - pace.idleFrom >= idleMs) this.cut(body, 'idle');
      else if (span >= windowMs && (bytes - base.bytes) * 1000 < minBytesPerSecond * span) this.cut(body, 'slow');
      else if (maxMs !== undefined && pace.clientMs >= maxMs) this.cut(body, 'overtime');
    }
  }

  private cut(body: WatchedBody, reason: BodyCutReason): void {
    this.forget(body);
    body.cut(reason);
  }
}
