import type { IncomingMessage } from 'node:http';

interface Watched {
  req: IncomingMessage;
  startedAt: number;
  /** The socket's byte count when the watch began (headers and earlier requests on it excluded). */
  bytesAtStart: number;
  onStall: () => void;
}

/** How often the one shared timer looks at every body being read. */
const CHECK_EVERY_MS = 500;

export interface BodyDeadlineRule {
  /** Time a body gets before any byte counts, in ms. */
  firstMs: number;
  /** Bytes that buy one more second. */
  minBytesPerSecond: number;
}

/**
 * Apache mod_reqtimeout's body rule (`body=10,MinRate=1000`): a body being read has
 * `firstMs`, extended by one second per `minBytesPerSecond` bytes received; past that it
 * stalls and `onStall` runs once. Progress is the socket's `bytesRead`, so nothing is read
 * from the stream here; one timer serves every body in flight, not one per request.
 */
export class BodyDeadlines {
  private readonly watched = new Set<Watched>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly rule: BodyDeadlineRule) {}

  /** Watches `req`'s body until the returned function is called. */
  watch(req: IncomingMessage, onStall: () => void): () => void {
    const entry: Watched = { req, startedAt: Date.now(), bytesAtStart: req.socket.bytesRead, onStall };
    this.watched.add(entry);
    this.timer ??= setInterval(() => this.check(), CHECK_EVERY_MS).unref();
    return () => this.watched.delete(entry);
  }

  /** The longest a body slower than the rule lives: the first deadline plus one check. */
  get boundMs(): number {
    return this.rule.firstMs + CHECK_EVERY_MS;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watched.clear();
  }

  private check(): void {
    const now = Date.now();
    for (const entry of this.watched) {
      const received = entry.req.socket.bytesRead - entry.bytesAtStart;
      if (now - entry.startedAt <= this.rule.firstMs + (received * 1000) / this.rule.minBytesPerSecond) continue;
      this.watched.delete(entry);
      entry.onStall();
    }
  }
}
