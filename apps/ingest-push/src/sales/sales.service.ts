import type { IncomingMessage } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { AppException } from '@app/errors';
import { Metrics, type MetricCounter } from '@app/observability';
import type { RowError } from './sale-copy.encoder';
import { SalesConfig } from './sales.config';
import { IngestionNotFoundException, SalesBodyTimeoutException, SalesBusyException, SalesFileTooLargeException } from './sales.exception';
import { SalesCopyTransform, type SalesFormat } from './sales-copy.transform';
import { SalesRepository, type IngestionCounts, type IngestionRow } from './sales.repository';

/** Who uploads: the account the API key belongs to, and the key. */
export interface SalesCaller {
  accountId: string;
  apiKeyId: string;
}

/** The response of an upload and of GET .../ingestions/{id}. */
export interface IngestionSummary {
  ingestion_id: string;
  status: IngestionRow['status'];
  format: string;
  bytes: number;
  received: number;
  inserted: number;
  updated: number;
  rejected: number;
  error_count: number;
  errors: RowError[];
  failure: string | null;
  started_at: string;
  finished_at: string | null;
  duration_ms: number;
}

/** Ends an upload whose client went away: nothing to answer, nothing kept. */
class ClientGoneError extends Error {
  constructor() {
    super('The client closed the connection before the upload ended.');
  }
}

const ERROR_PAGE = 5000;

/**
 * Streams one upload into PostgreSQL: body → parser/validator → COPY into a staging
 * table → one set-based merge into `sales`, all in one transaction, so an upload lands
 * whole or not at all. Backpressure runs end to end (the socket is read only as fast as
 * PostgreSQL takes rows), so memory stays flat whatever the file size.
 */
@Injectable()
export class SalesService {
  private readonly logger = new Logger('Sales');
  private running = 0;
  private readonly rows: MetricCounter<'outcome'>;

  constructor(
    private readonly repository: SalesRepository,
    private readonly config: SalesConfig,
    metrics: Metrics,
  ) {
    this.rows = metrics.counter('ingest_rows_total', 'Sales rows ingested (accepted) or refused (rejected).', ['outcome']);
  }

  async ingest(caller: SalesCaller, format: SalesFormat, body: IncomingMessage): Promise<IngestionSummary> {
    const declared = Number(body.headers['content-length']);
    if (declared > this.config.INGEST_MAX_BYTES) throw new SalesFileTooLargeException(this.config.INGEST_MAX_BYTES);
    if (this.running >= this.config.INGEST_MAX_CONCURRENT_UPLOADS) throw new SalesBusyException(5);
    this.running++;
    try {
      return await this.run(caller, format, body);
    } finally {
      this.running--;
    }
  }

  async summary(accountId: string, id: string): Promise<IngestionSummary> {
    const row = await this.repository.findIngestion(accountId, id);
    if (!row) throw new IngestionNotFoundException();
    const errors = row.error_count > 0 ? (await this.repository.errorsAfter(id, '0', 100)).map(({ id: _id, ...e }) => e) : [];
    return toSummary(row, errors);
  }

  /** The full error list as CSV lines (header first), page by page, for streaming out. */
  async *errorsCsv(accountId: string, id: string): AsyncGenerator<string> {
    const row = await this.repository.findIngestion(accountId, id);
    if (!row) throw new IngestionNotFoundException();
    yield 'line;record;field;reason\n';
    let after = '0';
    for (;;) {
      const page = await this.repository.errorsAfter(id, after, ERROR_PAGE);
      if (page.length === 0) return;
      yield page.map((e) => `${e.line};${e.record};${csvCell(e.field)};${csvCell(e.reason)}\n`).join('');
      after = page[page.length - 1].id;
    }
  }

  private async run(caller: SalesCaller, format: SalesFormat, body: IncomingMessage): Promise<IngestionSummary> {
    const config = this.config;
    const id = await this.repository.createIngestion(caller.accountId, caller.apiKeyId, format);
    const transform = new SalesCopyTransform(format, { maxBytes: config.INGEST_MAX_BYTES, maxRecordBytes: config.INGEST_MAX_RECORD_BYTES });
    const encoder = transform.encoder;
    const counts = (): IngestionCounts => ({ bytes: transform.bytes, received: encoder.received, rejected: encoder.rejected, errorCount: encoder.errorCount });
    const abort = new AbortController();
    let failure: Error | null = null;
    const fail = (error: Error) => {
      failure ??= error;
      abort.abort(error);
      transform.destroy(error);
    };
    const onClose = () => {
      if (!body.complete) fail(new ClientGoneError());
    };
    body.on('close', onClose);
    body.on('error', fail);
    // Its errors reach us through the COPY (and `failure`); this keeps a late one from going unhandled.
    transform.on('error', () => undefined);
    const stopWatchdog = this.watchStall(body, transform, () => fail(new SalesBodyTimeoutException(config.INGEST_IDLE_TIMEOUT_MS)));
    let progress: Promise<void> = Promise.resolve();
    const progressTimer = setInterval(() => {
      progress = this.repository.recordProgress(id, counts()).catch((error) => this.logger.warn({ err: error, ingestionId: id }, 'progress not recorded'));
    }, config.INGEST_PROGRESS_INTERVAL_MS);
    const stop = async () => {
      clearInterval(progressTimer);
      stopWatchdog();
      await progress;
    };
    const started = performance.now();
    let streamedMs = 0;
    try {
      await this.repository.transaction(async (tx) => {
        await this.repository.createStage(tx);
        // pipe, not pipeline: a failed parse must not destroy the request, whose response is still to be sent.
        body.pipe(transform);
        await this.repository.copyIntoStage(tx, transform, abort.signal);
        streamedMs = performance.now() - started;
        await stop();
        const inserted = await this.repository.mergeStage(tx, id, caller.accountId);
        await this.repository.markCompleted(tx, id, counts(), { inserted, updated: encoder.accepted - inserted });
      });
    } catch (error) {
      await stop();
      const cause = failure ?? (error as Error);
      await this.repository.markFailed(id, failureText(cause), counts()).catch((e) => this.logger.warn({ err: e, ingestionId: id }, 'failure not recorded'));
      throw cause;
    } finally {
      body.off('close', onClose);
      body.unpipe(transform);
    }
    this.rows.inc({ outcome: 'accepted' }, encoder.accepted);
    this.rows.inc({ outcome: 'rejected' }, encoder.rejected);
    const row = await this.repository.findIngestion(caller.accountId, id);
    // Where the time went: reading, parsing and COPYing the body, then the merge and commit.
    this.logger.log({ ingestionId: id, ...counts(), inserted: row!.inserted, updated: row!.updated, streamedMs: Math.round(streamedMs), mergedMs: Math.round(performance.now() - started - streamedMs) }, 'ingestion completed');
    return toSummary(row!, encoder.errors);
  }

  /**
   * Calls `onStall` when the client sends nothing for the idle timeout while the upload
   * waits for it. Time spent waiting on PostgreSQL (the request paused by backpressure,
   * or bytes already buffered) is not the client's and does not count.
   */
  private watchStall(body: IncomingMessage, transform: SalesCopyTransform, onStall: () => void): () => void {
    const idle = this.config.INGEST_IDLE_TIMEOUT_MS;
    let lastBytes = -1;
    let since = Date.now();
    const timer = setInterval(
      () => {
        const now = Date.now();
        const waitingForClient = body.readableFlowing !== false && body.readableLength === 0 && transform.writableLength === 0;
        if (transform.bytes !== lastBytes || !waitingForClient) {
          lastBytes = transform.bytes;
          since = now;
        } else if (now - since >= idle) onStall();
      },
      Math.max(25, Math.min(1000, idle / 4)),
    );
    return () => clearInterval(timer);
  }
}

function toSummary(row: IngestionRow, errors: RowError[]): IngestionSummary {
  return {
    ingestion_id: row.id,
    status: row.status,
    format: row.format,
    bytes: Number(row.bytes),
    received: row.received,
    inserted: row.inserted,
    updated: row.updated,
    rejected: row.rejected,
    error_count: row.error_count,
    errors,
    failure: row.failure,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration_ms: row.duration_ms,
  };
}

function failureText(error: Error): string {
  if (error instanceof AppException || error instanceof ClientGoneError) return error.message;
  return 'The upload failed on the server; nothing was kept.';
}

function csvCell(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
