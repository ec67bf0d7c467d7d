import { MalformedSalesFileException } from './sales.exception';
import type { ElementSink } from './json-array.splitter';

const NEWLINE = 0x0a;
const CR = 0x0d;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const BLANK = /^[ \t\r]*$/;

/**
 * Cuts a streamed NDJSON body into its lines (LF or CRLF), each handed over as text with its
 * 1-based line number; blank lines are skipped and the last line may lack its newline. Lines are
 * cut on the newline byte, which never occurs inside a UTF-8 sequence, and decoded only once
 * whole, so a chunk may end anywhere, even inside a character. A leading UTF-8 BOM is skipped.
 * Memory: at most one line (bounded by `maxLineBytes`) is held across chunks.
 */
export class NdjsonLinesSplitter {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private line = 1;
  private started = false;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer, emit: ElementSink): void {
    let start = 0;
    for (let eol = chunk.indexOf(NEWLINE); eol >= 0; eol = chunk.indexOf(NEWLINE, start)) {
      if (this.heldBytes === 0) this.emitLine(chunk.subarray(start, eol), emit);
      else {
        this.hold(chunk.subarray(start, eol));
        const whole = Buffer.concat(this.held, this.heldBytes);
        this.held = [];
        this.heldBytes = 0;
        this.emitLine(whole, emit);
      }
      start = eol + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
  }

  end(emit: ElementSink): void {
    if (this.heldBytes === 0) return;
    const whole = Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    this.heldBytes = 0;
    this.emitLine(whole, emit);
  }

  private emitLine(bytes: Buffer, emit: ElementSink): void {
    const line = this.line++;
    if (bytes.length > this.maxLineBytes) throw this.tooLong(line);
    let from = 0;
    if (!this.started) {
      this.started = true;
      if (bytes.length >= 3 && bytes.subarray(0, 3).equals(BOM)) from = 3;
    }
    const to = bytes.length > from && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
    const text = bytes.toString('utf8', from, to);
    if (BLANK.test(text)) return;
    emit(text, line);
  }

  private hold(part: Buffer): void {
    if (part.length === 0) return;
    this.heldBytes += part.length;
    if (this.heldBytes > this.maxLineBytes) throw this.tooLong(this.line);
    // Copied: the request stream may reuse its buffers.
    this.held.push(Buffer.from(part));
  }

  private tooLong(line: number): MalformedSalesFileException {
    return new MalformedSalesFileException(`A line is longer than ${this.maxLineBytes} bytes.`, line);
  }
}
