import { MalformedSalesFileException } from './sales.exception';

/** Receives each top-level element's source text, the line it starts on and its 1-based position. */
export type ElementSink = (source: string, line: number) => void;

const enum State {
  Start, // before '[' (a UTF-8 BOM and whitespace allowed)
  First, // after '[': an element or ']'
  Next, // after ',': an element
  After, // after an element: ',' or ']'
  Inside, // within an element
  Done, // after ']': whitespace only
}

const enum Kind {
  Container, // {...} or [...]
  String,
  Scalar, // number, true, false, null, or garbage up to the next delimiter
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const BOM = [0xef, 0xbb, 0xbf];

function isSpace(b: number): boolean {
  return b === 0x20 || b === NEWLINE || b === 0x0d || b === 0x09;
}

/**
 * Cuts a streamed JSON array into its top-level elements without parsing them: a byte
 * scanner that only tracks strings (and their escapes) and bracket depth, so each element
 * can go to JSON.parse on its own. Chunks may split the input anywhere, even inside a
 * UTF-8 sequence or an escape. The array's own syntax (the '[', commas, ']', nothing
 * after) is checked here; what is inside an element is JSON.parse's business.
 * Memory: at most one element (bounded by `maxElementBytes`) is held across chunks.
 */
export class JsonArraySplitter {
  private state = State.Start;
  private kind = Kind.Container;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private line = 1;
  private elementLine = 1;
  /** How many bytes of a leading UTF-8 BOM were skipped. */
  private bomAt = 0;
  /** Bytes of the stream before the current chunk. */
  private seen = 0;
  private held: Buffer[] = [];
  private heldBytes = 0;

  constructor(private readonly maxElementBytes: number) {}

  push(chunk: Buffer, emit: ElementSink): void {
    const n = chunk.length;
    let start = this.state === State.Inside ? 0 : -1;
    let i = 0;
    while (i < n) {
      if (this.state === State.Inside) {
        const end = this.scan(chunk, i);
        if (end < 0) break;
        this.emit(chunk, start, end, emit);
        start = -1;
        i = end;
        this.state = State.After;
        continue;
      }
      const b = chunk[i];
      if (b === NEWLINE) this.line++;
      if (this.state === State.Start && this.seen + i === this.bomAt && this.bomAt < 3 && b === BOM[this.bomAt]) {
        this.bomAt++;
        i++;
        continue;
      }
      if (isSpace(b)) {
        i++;
        continue;
      }
      switch (this.state) {
        case State.Start:
          // (A BOM cut short is not a BOM.)
          if (b !== OPEN_BRACKET || (this.bomAt > 0 && this.bomAt < 3))
            throw new MalformedSalesFileException('The body must be a JSON array of Sale objects.', this.line);
          this.state = State.First;
          i++;
          continue;
        case State.After:
          if (b === COMMA) this.state = State.Next;
          else if (b === CLOSE_BRACKET) this.state = State.Done;
          else throw new MalformedSalesFileException(`Expected "," or "]" after an element of the array, found ${describe(b)}.`, this.line);
          i++;
          continue;
        case State.Done:
          throw new MalformedSalesFileException(`Unexpected ${describe(b)} after the end of the array.`, this.line);
        case State.First:
          if (b === CLOSE_BRACKET) {
            this.state = State.Done;
            i++;
            continue;
          }
          if (b === COMMA) throw new MalformedSalesFileException('Expected an element or "]" after "[", found ",".', this.line);
          break;
        case State.Next:
          if (b === CLOSE_BRACKET || b === COMMA) throw new MalformedSalesFileException(`Expected an element after ",", found ${describe(b)}.`, this.line);
          break;
      }
      // An element starts here.
      this.state = State.Inside;
      this.elementLine = this.line;
      this.depth = 0;
      this.inString = false;
      this.escaped = false;
      this.kind = b === OPEN_BRACE || b === OPEN_BRACKET ? Kind.Container : b === QUOTE ? Kind.String : Kind.Scalar;
      start = i;
    }
    if (this.state === State.Inside) this.hold(chunk, start === -1 ? 0 : start);
    this.seen += n;
  }

  /** The body ended: the array must be complete. */
  end(): void {
    if (this.state === State.Done) return;
    const what = this.state === State.Start ? 'The body is empty; send a JSON array of Sale objects.' : 'The JSON array ends early: the body looks truncated.';
    throw new MalformedSalesFileException(what, this.line);
  }

  /** Scans an element from `i`; returns the index just after its end, or -1 when the chunk ends first. */
  private scan(chunk: Buffer, i: number): number {
    const n = chunk.length;
    if (this.kind === Kind.Scalar) {
      for (; i < n; i++) {
        const b = chunk[i];
        if (b === COMMA || b === CLOSE_BRACKET || isSpace(b)) return i;
      }
      return -1;
    }
    let depth = this.depth;
    let inString = this.inString;
    // Most bytes are inside strings: jump from quote to quote (memchr), stopping at backslashes.
    let backslash = chunk.indexOf(BACKSLASH, i);
    if (this.escaped) {
      this.escaped = false;
      i++;
    }
    // The element's first byte ('{', '[' or '"') is scanned like any other.
    while (i < n) {
      if (inString) {
        let quote = chunk.indexOf(QUOTE, i);
        if (backslash !== -1 && backslash < i) backslash = chunk.indexOf(BACKSLASH, i);
        while (backslash !== -1 && (quote === -1 || backslash < quote)) {
          if (backslash + 1 >= n) {
            // The escaped byte is in the next chunk.
            this.escaped = true;
            quote = -1;
            break;
          }
          i = backslash + 2;
          if (quote !== -1 && quote < i) quote = chunk.indexOf(QUOTE, i);
          backslash = chunk.indexOf(BACKSLASH, i);
        }
        if (quote === -1) break;
        inString = false;
        i = quote + 1;
        if (this.kind === Kind.String) return i;
        continue;
      }
      const b = chunk[i++];
      if (b === QUOTE) inString = true;
      else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (--depth === 0) return i;
      } else if (b === NEWLINE) this.line++;
    }
    this.depth = depth;
    this.inString = inString;
    return -1;
  }

  private emit(chunk: Buffer, start: number, end: number, emit: ElementSink): void {
    let source: string;
    if (this.held.length === 0) source = chunk.toString('utf8', start, end);
    else {
      this.hold(chunk.subarray(0, end), 0);
      source = Buffer.concat(this.held, this.heldBytes).toString('utf8');
      this.held = [];
      this.heldBytes = 0;
    }
    emit(source, this.elementLine);
  }

  private hold(chunk: Buffer, start: number): void {
    const part = chunk.subarray(start);
    this.heldBytes += part.length;
    if (this.heldBytes > this.maxElementBytes) {
      throw new MalformedSalesFileException(`An element of the array is larger than ${this.maxElementBytes} bytes.`, this.elementLine);
    }
    // Copied: the request stream may reuse its buffers.
    this.held.push(Buffer.from(part));
  }
}

function describe(b: number): string {
  return b >= 0x20 && b < 0x7f ? `"${String.fromCharCode(b)}"` : `byte 0x${b.toString(16).padStart(2, '0')}`;
}
