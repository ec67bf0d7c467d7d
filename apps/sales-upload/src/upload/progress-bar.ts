import type { SalesFormat } from './upload-args';

/**
 * The progress line on stderr: bytes sent, rows/s, MB/s and ETA. Rows are an estimate, counted
 * from line ends in CSV and from "OrderId" keys in JSON. Redrawn in place on a terminal, a line
 * every 5 s otherwise.
 */
export class ProgressBar {
  bytes = 0;
  private rows = 0;
  private readonly started = Date.now();
  private shown = 0;
  private readonly needle: Buffer;

  constructor(
    private readonly total: number,
    format: SalesFormat,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {
    this.needle = format === 'csv' ? Buffer.from('\n') : Buffer.from('"OrderId"');
  }

  add(chunk: Buffer): void {
    this.bytes += chunk.length;
    for (let at = chunk.indexOf(this.needle); at !== -1; at = chunk.indexOf(this.needle, at + 1)) this.rows++;
    const now = Date.now();
    if (now - this.shown >= (this.out.isTTY ? 200 : 5000)) this.show(now);
  }

  show(now = Date.now()): void {
    this.shown = now;
    const seconds = Math.max(0.001, (now - this.started) / 1000);
    const share = this.total > 0 ? Math.min(1, this.bytes / this.total) : 1;
    const width = 30;
    const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '.');
    const rate = this.bytes / seconds;
    const eta = rate > 0 ? Math.round((this.total - this.bytes) / rate) : 0;
    const line = `[${bar}] ${(share * 100).toFixed(1)}% ${mb(this.bytes)}/${mb(this.total)} MB, ${Math.round(this.rows / seconds)} rows/s, ${mb(rate)} MB/s, ETA ${eta}s`;
    this.out.write(this.out.isTTY ? `\r${line}` : `${line}\n`);
  }

  done(): void {
    this.show();
    if (this.out.isTTY) this.out.write('\n');
  }
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
