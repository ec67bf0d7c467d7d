import { createReadStream, statSync } from 'node:fs';
import type { SalesFormat } from './upload-args';

/**
 * A part: a byte range of the file, the ingestion id it is sent under (recorded before it is
 * sent), and the outcome once known (none yet: ask the service before sending it again).
 */
export interface Part {
  start: number;
  end: number;
  ingestion_id?: string;
  outcome?: 'completed' | 'failed' | 'cancelled';
}

export interface Plan {
  format: SalesFormat;
  parts: Part[];
  /** The CSV header line, repeated in every CSV part after the first. */
  header: Buffer;
  /** The file goes in more than one part. */
  split: boolean;
}

/** Finds the records in the file's chunks, in order: [first byte, byte after the last) of each. */
type Boundaries = (chunk: Buffer, offset: number) => Array<[number, number]>;

const NEWLINE = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Where the parts start and end (byte offsets in the file), cut on record boundaries, each at
 * most `maxBytes` once its header (CSV) or brackets (JSON) are added.
 */
export async function planParts(file: string, format: SalesFormat, maxBytes: number): Promise<Plan> {
  const size = statSync(file).size;
  const header = format === 'csv' ? await firstLine(file) : Buffer.alloc(0);
  if (size <= maxBytes) return { format, parts: [{ start: 0, end: size }], header, split: false };
  // What a part adds to its slice of the file: the header (CSV parts after the first, which holds it) or the brackets (JSON).
  const overhead = (start: number) => (format === 'json' ? 2 : start === 0 ? 0 : header.length);
  const parts: Part[] = [];
  let partStart = format === 'csv' ? 0 : -1;
  let lastEnd = -1; // end of the last complete record in the current part
  const take = (start: number, end: number) => {
    if (partStart < 0) partStart = start;
    if (end - partStart + overhead(partStart) <= maxBytes) {
      lastEnd = end;
      return;
    }
    if (lastEnd > partStart) {
      parts.push({ start: partStart, end: lastEnd });
      partStart = start;
    }
    if (end - partStart + overhead(partStart) > maxBytes) throw new Error(`A record at byte ${start} does not fit in a part of ${maxBytes} bytes.`);
    lastEnd = end;
  };
  const boundaries = format === 'csv' ? csvBoundaries() : jsonBoundaries();
  let offset = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    for (const [start, end] of boundaries(chunk as Buffer, offset)) take(start, end);
    offset += (chunk as Buffer).length;
  }
  // A CSV file's last record may have no line end: it is a record all the same.
  const tail = Math.max(lastEnd, header.length);
  if (format === 'csv' && size > tail) take(tail, size);
  if (lastEnd > partStart) parts.push({ start: partStart, end: lastEnd });
  return { format, parts, header, split: true };
}

async function firstLine(file: string): Promise<Buffer> {
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024, end: 1024 * 1024 })) {
    const eol = (chunk as Buffer).indexOf(NEWLINE);
    if (eol >= 0) return Buffer.from((chunk as Buffer).subarray(0, eol + 1));
  }
  throw new Error('The CSV file has no complete header line.');
}

/**
 * CSV records: a record ends at a newline outside quotes ("" inside quotes toggles twice, so it
 * nets out). The header line is not a record.
 */
export function csvBoundaries(): Boundaries {
  let inQuotes = false;
  let recordStart = -1; // -1: still in the header
  return (chunk, offset) => {
    const out: Array<[number, number]> = [];
    let i = 0;
    while (i < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, i);
      const quote = chunk.indexOf(QUOTE, i);
      if (quote !== -1 && (nl === -1 || quote < nl)) {
        inQuotes = !inQuotes;
        i = quote + 1;
        continue;
      }
      if (nl === -1) break;
      if (!inQuotes) {
        if (recordStart >= 0) out.push([recordStart, offset + nl + 1]);
        recordStart = offset + nl + 1;
      }
      i = nl + 1;
    }
    return out;
  };
}

/** JSON: the top-level elements of the array, from their first byte to just after their last. */
export function jsonBoundaries(): Boundaries {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  return (chunk, offset) => {
    const out: Array<[number, number]> = [];
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) inString = false;
        continue;
      }
      if (b === QUOTE) inString = true;
      else if (b === 0x7b || b === 0x5b) {
        if (depth === 1 && b === 0x7b) start = offset + i;
        depth++;
      } else if (b === 0x7d || b === 0x5d) {
        depth--;
        if (depth === 1 && b === 0x7d) out.push([start, offset + i + 1]);
      }
    }
    return out;
  };
}

/** The bytes of one part, streamed: the header (CSV parts after the first) or the brackets (JSON parts of a split file), and the file's slice. */
export async function* partBytes(file: string, plan: Plan, index: number): AsyncGenerator<Buffer> {
  const part = plan.parts[index];
  if (plan.format === 'csv' && index > 0) yield plan.header;
  if (plan.format === 'json' && plan.split) yield Buffer.from('[');
  if (part.end > part.start) yield* createReadStream(file, { start: part.start, end: part.end - 1, highWaterMark: 256 * 1024 }) as AsyncIterable<Buffer>;
  if (plan.format === 'json' && plan.split) yield Buffer.from(']');
}

/** The size of a part as sent. */
export function partSize(plan: Plan, index: number): number {
  const part = plan.parts[index];
  let size = part.end - part.start;
  if (plan.format === 'csv' && index > 0) size += plan.header.length;
  if (plan.format === 'json' && plan.split) size += 2;
  return size;
}
