import type { SalesFormat } from './upload-args';

/** What the service says it is doing with the part under way (GET …/ingestions/{id}). */
export type ServerStage = 'receiving' | 'storing' | 'merging';

/**
 * The progress line on stderr: bytes done, rows/s, MB/s and ETA while sending, then the service's
 * own stage until it answers. Rows are an estimate, counted from line ends in CSV and from
 * "OrderId" keys in JSON. Rates and the ETA count only bytes sent by this run (a skipped part, or one
 * stored by an earlier run, is not a transfer), and the ETA waits for ETA_AFTER_MS of sending: from the
 * first chunks alone (buffered locally in no time) it would be a guess. Redrawn in place on a terminal,
 * a line every 5 s (and at each stage change) otherwise.
 */
const ETA_AFTER_MS = 2000;

export class ProgressBar {
  /** Bytes done: sent by this run, or in parts already stored. */
  bytes = 0;
  private sent = 0;
  private rows = 0;
  private firstSent = 0;
  private shown = 0;
  private stage: { name: ServerStage; received: number } | null = null;
  private readonly needle: Buffer;

  constructor(
    private readonly total: number,
    format: SalesFormat,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {
    this.needle = format === 'csv' ? Buffer.from('\n') : Buffer.from('"OrderId"');
  }

  add(chunk: Buffer): void {
    if (this.sent === 0) this.firstSent = Date.now();
    this.bytes += chunk.length;
    this.sent += chunk.length;
    for (let at = chunk.indexOf(this.needle); at !== -1; at = chunk.indexOf(this.needle, at + 1)) this.rows++;
    const now = Date.now();
    if (now - this.shown >= (this.out.isTTY ? 200 : 5000)) this.show(now);
  }

  /** Takes back bytes sent in an attempt that failed (they go again). */
  undo(bytes: number): void {
    this.bytes -= bytes;
    this.sent -= bytes;
  }

  /** A part already stored: done, but not sent by this run. */
  skip(bytes: number): void {
    this.bytes += bytes;
  }

  /** The service's stage for the part under way, shown at once when it changes; null when the part ended. */
  serverStage(name: ServerStage | null, received = 0): void {
    const changed = name !== this.stage?.name;
    this.stage = name === null ? null : { name, received };
    if (changed && name !== null) this.show();
  }

  show(now = Date.now()): void {
    this.shown = now;
    const share = this.total > 0 ? Math.min(1, this.bytes / this.total) : 1;
    const width = 30;
    const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '.');
    let line = `[${bar}] ${(share * 100).toFixed(1)}% ${mb(this.bytes)}/${mb(this.total)} MB`;
    if (this.sent > 0) {
      const seconds = Math.max(0.001, (now - this.firstSent) / 1000);
      const rate = this.sent / seconds;
      line += `, ${Math.round(this.rows / seconds)} rows/s, ${mb(rate)} MB/s`;
      // Once the service is storing or merging, the wait is its own: an ETA from the send rate would say 0s.
      const measured = now - this.firstSent >= ETA_AFTER_MS;
      if (measured && (!this.stage || this.stage.name === 'receiving')) line += `, ETA ${Math.round((this.total - this.bytes) / rate)}s`;
    }
    if (this.stage) line += `, server: ${this.stage.name} (${this.stage.received} records)`;
    this.out.write(this.out.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
  }

  done(): void {
    this.stage = null;
    this.show();
    if (this.out.isTTY) this.out.write('\n');
  }
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
