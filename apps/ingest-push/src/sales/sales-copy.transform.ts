import { Transform, type TransformCallback } from 'node:stream';
import { CsvSalesReader } from './csv-sales.reader';
import { JsonArraySplitter } from './json-array.splitter';
import { ERROR_SAMPLE_RECORDS, SaleCopyEncoder, type CopyText, type LineOwner } from './sale-copy.encoder';
import { NdjsonLinesSplitter } from './ndjson-lines.splitter';
import { ErrorBudgetExceededException, MostlyErrorsException, SalesFileTooLargeException } from './sales.exception';

export type SalesFormat = 'csv' | 'json' | 'ndjson';

/** The table a COPY fills: `sales` itself, or the upload's stage. */
export type CopyTarget = keyof CopyText;

/** What the transform gives out: a piece of COPY text for one table. */
interface CopyChunk {
  into: CopyTarget;
  text: Buffer;
}

/** The upload's error budget (max_error_ratio, max_errors); either may be absent. */
export interface ErrorBudget {
  maxErrorRatio?: number;
  maxErrors?: number;
}

export interface SalesCopyLimits {
  /** Bytes of body accepted; one more is a 413. */
  maxBytes: number;
  /** Longest single record, in bytes (JSON) or characters (CSV). */
  maxRecordBytes: number;
  /** Row errors sent to the COPY (stored); the rest are counted. */
  maxStoredErrors: number;
  /** Refuse a CustomerCPF_CNPJ whose check digits are wrong (SALES_VALIDATE_CPF_CNPJ). */
  checkCpfCnpj?: boolean;
  /**
   * The client's error budget: it replaces the stop on a file mostly of errors, and `maxErrors`
   * stops the upload (422) as soon as one record more is rejected.
   */
  budget?: ErrorBudget;
}

/**
 * The body (bytes of a CSV, JSON or NDJSON Sale file, decompressed) in, COPY text out (SaleCopyEncoder: lines
 * for `sales` first, then for the stage), at most one chunk per table per input chunk, read with `rowsInto`,
 * so stream backpressure reaches from PostgreSQL back to the client. Counts every byte read (chunked bodies
 * too) against the limit, and stops a file most of whose first records are rejected (400) rather than storing
 * its errors. Counters and the errors are read from `encoder` while and after it runs.
 */
export class SalesCopyTransform extends Transform {
  readonly encoder: SaleCopyEncoder;
  bytes = 0;
  /** Every chunk was read (by `rowsInto`). */
  done = false;
  private chunks?: AsyncIterator<unknown>;
  private carried?: CopyChunk;
  private readonly consume: (chunk: Buffer) => void;
  private readonly complete: () => void;

  constructor(
    format: SalesFormat,
    owner: LineOwner,
    private readonly limits: SalesCopyLimits,
  ) {
    super({ readableObjectMode: true, readableHighWaterMark: 1 });
    this.encoder = new SaleCopyEncoder(owner, limits.maxStoredErrors, limits.checkCpfCnpj ?? false);
    if (format === 'csv') {
      const reader = new CsvSalesReader(this.encoder, limits.maxRecordBytes);
      this.consume = (chunk) => reader.push(chunk);
      this.complete = () => reader.end();
    } else if (format === 'ndjson') {
      const splitter = new NdjsonLinesSplitter(limits.maxRecordBytes);
      const sink = (source: string, line: number) => this.encoder.jsonRecord(source, line);
      this.consume = (chunk) => splitter.push(chunk, sink);
      this.complete = () => splitter.end(sink);
    } else {
      const splitter = new JsonArraySplitter(limits.maxRecordBytes);
      const sink = (source: string, line: number) => this.encoder.jsonRecord(source, line);
      this.consume = (chunk) => splitter.push(chunk, sink);
      this.complete = () => splitter.end();
    }
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limits.maxBytes) return callback(new SalesFileTooLargeException(this.limits.maxBytes));
    try {
      this.consume(chunk);
    } catch (error) {
      return callback(error as Error);
    }
    this.flushRows(callback);
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.complete();
    } catch (error) {
      return callback(error as Error);
    }
    this.flushRows(callback);
  }

  private flushRows(callback: TransformCallback): void {
    const budget = this.limits.budget;
    if (budget) {
      const { maxErrors } = budget;
      if (maxErrors !== undefined && this.encoder.rejected > maxErrors) {
        return callback(new ErrorBudgetExceededException({ ...budget, received: this.encoder.received, rejected: this.encoder.rejected }, false));
      }
    } else {
      const rejected = this.encoder.sampleRejected;
      if (rejected > ERROR_SAMPLE_RECORDS / 2) return callback(new MostlyErrorsException(rejected, ERROR_SAMPLE_RECORDS));
    }
    const { sales, stage } = this.encoder.take();
    if (sales !== '') this.push({ into: 'sales', text: Buffer.from(sales) } satisfies CopyChunk);
    if (stage !== '') this.push({ into: 'stage', text: Buffer.from(stage) } satisfies CopyChunk);
    callback();
  }

  /**
   * The COPY text for `into`, as long as the output is for that table: `rowsInto('sales')` ends at the first
   * chunk for the stage (kept for `rowsInto('stage')`) or at the end, which `done` then tells.
   */
  async *rowsInto(into: CopyTarget): AsyncGenerator<Buffer> {
    this.chunks ??= this.iterator({ destroyOnReturn: false });
    for (;;) {
      let chunk = this.carried;
      this.carried = undefined;
      if (!chunk) {
        const next = await this.chunks.next();
        if (next.done) {
          this.done = true;
          return;
        }
        chunk = next.value as CopyChunk;
      }
      if (chunk.into !== into) {
        this.carried = chunk;
        return;
      }
      yield chunk.text;
    }
  }
}
