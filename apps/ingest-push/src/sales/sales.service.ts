import { audited, AuditLog, type AuditActor } from '@app/audit';
import { Sql, type SqlClient } from '@app/database';
import type { IncomingMessage } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { AppException, isTransientFault } from '@app/errors';
import { fillHours, hourlyWindow, type PageQuery } from '@app/pagination';
import { Metrics, type MetricCounter } from '@app/observability';
import type { HourlyWindowQueryDto } from '../common/hourly-window-query.dto';
import type { IngestionListItem, IngestionListQueryDto, IngestionStats, IngestionSummary, RowError } from './ingestion.dto';
import { SalesBodyWatch } from './sales-body.watch';
import { SalesConfig } from './sales.config';
import {
  ClientClosedRequestException,
  IngestionCancelledException,
  IngestionEndedException,
  IngestionIdInUseException,
  IngestionNotFoundException,
  ErrorBudgetExceededException,
  MalformedSalesFileException,
  SalesBodyTimeoutException,
  SalesBodyTooSlowException,
  SalesBusyException,
  SalesFileTooLargeException,
} from './sales.exception';
import { SalesCopyTransform, type ErrorBudget, type SalesFormat } from './sales-copy.transform';
import { salesDecompressor, type SalesContentEncoding } from './sales-content-encoding';
import { SalesRollupRefresher } from './sales-rollup.refresher';
import { SalesHeartbeat } from './sales-heartbeat.service';
import type { IngestionStage } from './sales-ingestion.entity';
import { SalesRepository, type IngestionCounts, type IngestionEnd } from './sales.repository';
import { subjectKeys, type SubjectKey } from './customer-subject';

/** Who uploads: the account the API key belongs to, and the key. */
export interface SalesCaller {
  accountId: string;
  apiKeyId: string;
}

/** One upload as the controller hands it over. */
export interface SalesUpload {
  format: SalesFormat;
  body: IncomingMessage;
  /** The id the client chose (X-Ingestion-Id), or null. */
  id: string | null;
  /** How the body is compressed (Content-Encoding); identity when absent. */
  encoding?: SalesContentEncoding;
  /** The client's error budget (max_error_ratio, max_errors); none keeps every valid record whatever the errors. */
  budget?: ErrorBudget;
}

const BUSY_RETRY_SECONDS = 5;
const ERROR_PAGE = 5000;
/**
 * Savepointed COPYs one upload runs at most (then the rest is staged): PostgreSQL keeps the first 64 subtransactions of a
 * transaction in shared memory, and past them every snapshot taken in the cluster while it runs looks in pg_subtrans.
 */
const MAX_STRAIGHT_SEGMENTS = 48;

/**
 * Streams one upload into PostgreSQL: body → parser/validator → COPY, all in one transaction, so an
 * upload lands whole or not at all. With the account's turn taken (into an account without lines, or by
 * a large upload), the COPY goes straight into `sales` (`copyStraight`) until a line's key may repeat one
 * before it in the file or, in an account with lines, is stored already; the rest (everything, without the
 * turn) is COPYed into a staging table and merged into `sales` by one set-based statement. Backpressure
 * runs end to end (the socket is read only as fast as PostgreSQL takes rows), so memory stays flat
 * whatever the file size.
 */
@Injectable()
export class SalesService {
  private readonly logger = new Logger('Sales');
  private running = 0;
  private readonly rows: MetricCounter<'outcome'>;
  private readonly uploads: MetricCounter<'outcome'>;
  private readonly runningByAccount = new Map<string, number>();
  /** The keys erased customers are hashed with, to recognise one uploaded again. */
  private readonly erasureKeys: SubjectKey[];

  constructor(
    private readonly repository: SalesRepository,
    private readonly config: SalesConfig,
    metrics: Metrics,
    private readonly bodyWatch: SalesBodyWatch,
    private readonly heartbeat: SalesHeartbeat,
    private readonly sql: Sql,
    private readonly audit: AuditLog,
    private readonly rollups: SalesRollupRefresher,
  ) {
    this.erasureKeys = subjectKeys(config.ENCRYPTION_KEYS);
    this.rows = metrics.counter('ingest_rows_total', 'Sales rows ingested (accepted) or refused (rejected).', ['outcome']);
    this.uploads = metrics.counter('ingest_uploads_total', 'Sales uploads this process ended, by outcome (completed, failed, cancelled).', ['outcome']);
    metrics.gauge('ingest_uploads_running', 'Sales uploads this process is receiving or merging now.', [], (set) => set({}, this.running));
  }

  async ingest(caller: SalesCaller, upload: SalesUpload): Promise<IngestionSummary> {
    const declared = Number(upload.body.headers['content-length']);
    if (declared > this.config.INGEST_MAX_BYTES) throw new SalesFileTooLargeException(this.config.INGEST_MAX_BYTES);
    const account = caller.accountId;
    const ofAccount = this.runningByAccount.get(account) ?? 0;
    const slots = this.config.INGEST_MAX_CONCURRENT_UPLOADS;
    if (this.running >= slots) throw new SalesBusyException(BUSY_RETRY_SECONDS, 'instance');
    if (ofAccount >= this.config.INGEST_MAX_CONCURRENT_UPLOADS_PER_ACCOUNT) throw new SalesBusyException(BUSY_RETRY_SECONDS, 'account');
    // The last free slot is kept for an account that holds none, so slow uploads of a few accounts never lock others out.
    if (ofAccount > 0 && this.running >= slots - 1) throw new SalesBusyException(BUSY_RETRY_SECONDS, 'account');
    this.running++;
    this.runningByAccount.set(account, ofAccount + 1);
    try {
      return await this.run(caller, upload);
    } finally {
      this.running--;
      const left = this.runningByAccount.get(account)! - 1;
      if (left === 0) this.runningByAccount.delete(account);
      else this.runningByAccount.set(account, left);
    }
  }

  /** The account's ingestions, newest first, each as GET …/ingestions/{id} shows it but without `errors`. */
  list(accountId: string, query: IngestionListQueryDto, page: PageQuery): Promise<{ rows: IngestionListItem[]; total: number }> {
    return this.repository.listIngestions(accountId, query.status, page.perPage, page.offset);
  }

  /** Rows inserted, updated and rejected by the account's completed ingestions, by the UTC hour they started. */
  async stats(accountId: string, query: HourlyWindowQueryDto): Promise<IngestionStats> {
    const window = hourlyWindow(query.window);
    const rows = await this.repository.rowsByHour(accountId, window.since);
    const data = fillHours(
      window,
      rows,
      () => ({ total: 0, by_status: { inserted: 0, updated: 0, rejected: 0 } }),
      (bucket, row) => {
        bucket.by_status = { inserted: row.inserted, updated: row.updated, rejected: row.rejected };
        bucket.total = row.inserted + row.updated + row.rejected;
      },
    );
    return { window: window.window, since: window.since, data };
  }

  async summary(accountId: string, id: string): Promise<IngestionSummary> {
    const row = await this.repository.findIngestion(accountId, id);
    if (!row) throw new IngestionNotFoundException();
    const errors = row.error_count > 0 ? (await this.repository.errorsAfter(id, '0', 100)).map(({ id: _id, ...e }) => e) : [];
    return toSummary(row, errors);
  }

  /**
   * Cancels a running ingestion of the account, wherever it runs: here at once, on another
   * process with its next heartbeat. Answers its summary (still running); 409 once it ended.
   */
  async cancel(accountId: string, id: string, actor: AuditActor): Promise<IngestionSummary> {
    // The request (an UPDATE of a running row) and the read of the status are two statements: a run whose
    // row became visible between them (its INSERT committed just then) reads `running`. Asked again, the
    // request finds it, so the cancel wins; it can miss again only if the run ended, and the read names that.
    // Recorded only when there was a running ingestion to cancel.
    const requestCancel = () =>
      audited(this.sql, this.audit, actor, async (tx, record) => {
        const requested = await this.repository.requestCancel(tx, accountId, id);
        if (requested) {
          await record({ tenantId: accountId, action: 'ingestion.cancelled', targetType: 'ingestion', targetId: id, after: { cancel_requested: true } });
        }
        return requested;
      });
    while (!(await requestCancel())) {
      const status = await this.repository.statusOf(accountId, id);
      if (status === null) throw new IngestionNotFoundException();
      if (status !== 'running') throw new IngestionEndedException(id, status);
    }
    this.heartbeat.cancelHere(id);
    return this.summary(accountId, id);
  }

  /** The stored error list as CSV lines (header first), page by page, for streaming out; a last line counts those not stored. */
  async *errorsCsv(accountId: string, id: string): AsyncGenerator<string> {
    const row = await this.repository.findIngestion(accountId, id);
    if (!row) throw new IngestionNotFoundException();
    yield 'line;record;field;reason\n';
    let after = '0';
    for (;;) {
      const page = await this.repository.errorsAfter(id, after, ERROR_PAGE);
      if (page.length === 0) break;
      yield page.map((e) => `${e.line};${e.record};${csvCell(e.field)};${csvCell(e.reason)}\n`).join('');
      after = page[page.length - 1].id;
    }
    if (row.errors_not_stored > 0) yield `;;;${row.errors_not_stored} more errors were counted but not stored\n`;
  }

  private async run(caller: SalesCaller, upload: SalesUpload): Promise<IngestionSummary> {
    const { body, format } = upload;
    const config = this.config;
    const id = await this.repository.createIngestion(caller.accountId, caller.apiKeyId, format, upload.id);
    if (id === null) throw new IngestionIdInUseException(upload.id!, await this.repository.statusOf(caller.accountId, upload.id!));
    const transform = new SalesCopyTransform(
      format,
      { accountId: caller.accountId, ingestionId: id },
      {
        maxBytes: config.INGEST_MAX_BYTES,
        maxRecordBytes: config.INGEST_MAX_RECORD_BYTES,
        maxStoredErrors: config.INGEST_MAX_STORED_ERRORS,
        checkCpfCnpj: config.SALES_VALIDATE_CPF_CNPJ === 'true',
        budget: upload.budget,
      },
    );
    // Decompressed as it arrives: the byte limit counts the decompressed bytes, and zlib pauses with PostgreSQL.
    const encoding = upload.encoding ?? 'identity';
    const decompressor = salesDecompressor(encoding);
    const input = decompressor ?? transform;
    const encoder = transform.encoder;
    const counts = (): IngestionCounts => ({
      bytes: transform.bytes,
      received: encoder.received,
      rejected: encoder.rejected,
      errorCount: encoder.errorCount,
      errorsNotStored: encoder.errorCount - encoder.stored.length,
    });
    let stage: IngestionStage = 'receiving';
    const abort = new AbortController();
    let failure: Error | null = null;
    const fail = (error: Error) => {
      failure ??= error;
      abort.abort(error);
      transform.destroy(error);
    };
    // Counts the socket's bytes, so the watch never reads the body itself.
    const stopWatch = this.bodyWatch.watch({
      bytesRead: () => body.socket?.bytesRead ?? 0,
      waitingForClient: () =>
        body.readableFlowing !== false && body.readableLength === 0 && (decompressor?.writableLength ?? 0) === 0 && transform.writableLength === 0,
      cut: fail,
    });
    // Whatever ends the request early (a reset, a close before the body's end) is the client leaving.
    const onGone = () => {
      if (!body.complete) fail(new ClientClosedRequestException());
    };
    const onEnd = () => {
      stage = 'storing';
      stopWatch();
    };
    // Compressed bytes count too: empty gzip members decompress to nothing, yet must not stream forever.
    let compressed = 0;
    const countCompressed = (chunk: Buffer) => {
      compressed += chunk.length;
      if (compressed > config.INGEST_MAX_BYTES) fail(new SalesFileTooLargeException(config.INGEST_MAX_BYTES));
    };
    body.on('close', onGone);
    body.on('error', onGone);
    body.once('end', onEnd);
    // Its errors reach us through the COPY (and `failure`); this keeps a late one from going unhandled.
    transform.on('error', () => undefined);
    decompressor?.on('error', (error: Error) => fail(new MalformedSalesFileException(`The body is not valid ${encoding} data: ${error.message}.`)));
    this.heartbeat.add({ id, stage: () => stage, counts, cancel: () => fail(new IngestionCancelledException(id)) });
    const started = performance.now();
    let streamedMs = 0;
    try {
      await this.repository.transaction(async (tx) => {
        // With the account's turn, lines go straight into sales until one may repeat, or meets a stored one.
        const large = Number(body.headers['content-length']) >= config.INGEST_STRAIGHT_MIN_BYTES;
        const turn = await this.repository.takeTurn(tx, caller.accountId, large);
        if (turn) encoder.intoSales();
        // pipe, not pipeline: a failed parse must not destroy the request, whose response is still to be sent.
        body.pipe(input);
        // After the pipe: a 'data' listener alone would start the body flowing with no one to take it.
        if (decompressor) {
          body.on('data', countCompressed);
          decompressor.pipe(transform);
        }
        const straight = turn ? await this.copyStraight(tx, transform, turn.empty, abort.signal) : { lines: 0, replay: [] };
        const staged = straight.replay.length > 0 || !transform.done;
        if (staged) {
          await this.repository.createStage(tx);
          await this.repository.copyIntoStage(tx, stageRows(straight.replay, transform), abort.signal);
        }
        streamedMs = performance.now() - started;
        if (overBudget(upload.budget, encoder.received, encoder.rejected)) {
          throw new ErrorBudgetExceededException({ ...upload.budget, received: encoder.received, rejected: encoder.rejected }, true);
        }
        stage = 'merging';
        const inserted = straight.lines + (staged ? await this.repository.mergeStage(tx, id, caller.accountId) : 0);
        await this.repository.markDaysDirty(tx, caller.accountId, encoder.salesDays);
        await this.repository.storeErrors(tx, id, encoder.stored);
        const linesIn = staged && straight.lines === 0 ? 'stage' : 'sales';
        const erasedCustomers = await this.repository.erasedCustomers(tx, caller.accountId, id, linesIn, this.erasureKeys);
        if (!(await this.repository.markCompleted(tx, id, counts(), { inserted, updated: encoder.accepted - inserted, erasedCustomers }))) {
          throw new IngestionCancelledException(id);
        }
      });
    } catch (error) {
      const cause = failure ?? (error as Error);
      this.uploads.inc({ outcome: endOf(cause) });
      await this.repository
        .markEnded(id, endOf(cause), failureText(cause), counts())
        .catch((e) => this.logger.warn({ err: e, ingestionId: id }, 'failure not recorded'));
      if (cause instanceof ClientClosedRequestException)
        this.logger.log({ ingestionId: id, ...counts() }, 'client disconnected mid-upload; ingestion cancelled');
      throw cause;
    } finally {
      stopWatch();
      body.off('data', countCompressed);
      body.off('close', onGone);
      body.off('error', onGone);
      body.off('end', onEnd);
      body.unpipe(input);
      transform.destroy();
      if (decompressor) {
        decompressor.unpipe(transform);
        decompressor.destroy();
      }
      await this.heartbeat.remove(id);
    }
    this.rollups.uploadEnded();
    this.uploads.inc({ outcome: 'completed' });
    this.rows.inc({ outcome: 'accepted' }, encoder.accepted);
    this.rows.inc({ outcome: 'rejected' }, encoder.rejected);
    const row = await this.repository.findIngestion(caller.accountId, id);
    // Where the time went: reading, parsing and COPYing the body, then the merge and commit.
    this.logger.log(
      {
        ingestionId: id,
        ...counts(),
        inserted: row!.inserted,
        updated: row!.updated,
        streamedMs: Math.round(streamedMs),
        mergedMs: Math.round(performance.now() - started - streamedMs),
      },
      'ingestion completed',
    );
    return toSummary(row!, encoder.errors);
  }

  /**
   * COPYs the lines for `sales` straight into it. Into an empty account nothing can collide: one COPY. Into an
   * account with lines, COPYs of about INGEST_STRAIGHT_SEGMENT_BYTES, each under a savepoint, its chunks kept until
   * it committed: the first that meets a stored key is rolled back, and its chunks (`replay`) and every later line
   * go to the stage, as does everything after MAX_STRAIGHT_SEGMENTS. Returns the lines kept in `sales`.
   */
  private async copyStraight(tx: SqlClient, transform: SalesCopyTransform, empty: boolean, signal: AbortSignal): Promise<{ lines: number; replay: Buffer[] }> {
    const rows = transform.rowsInto('sales');
    if (empty) return { lines: await this.repository.copyIntoSales(tx, rows, signal), replay: [] };
    let lines = 0;
    for (let n = 0; n < MAX_STRAIGHT_SEGMENTS; n++) {
      const segment = new CopySegment(rows, this.config.INGEST_STRAIGHT_SEGMENT_BYTES);
      const copied = await this.repository.tryCopyIntoSales(tx, segment.rows(), signal);
      if (copied === null) {
        transform.encoder.stopIntoSales();
        return { lines, replay: segment.kept };
      }
      lines += copied;
      if (segment.last) return { lines, replay: [] };
    }
    transform.encoder.stopIntoSales();
    return { lines, replay: [] };
  }
}

/**
 * Up to `maxBytes` (or one chunk more) of `source`, read by one COPY without ending `source`: every chunk read is
 * kept, also one the COPY never took because it failed meanwhile; `last` tells that `source` ended.
 */
class CopySegment {
  readonly kept: Buffer[] = [];
  last = false;

  constructor(
    private readonly source: AsyncIterator<Buffer>,
    private readonly maxBytes: number,
  ) {}

  async *rows(): AsyncGenerator<Buffer> {
    for (let bytes = 0; bytes < this.maxBytes;) {
      const next = await this.source.next();
      if (next.done) {
        this.last = true;
        return;
      }
      this.kept.push(next.value);
      bytes += next.value.length;
      yield next.value;
    }
  }
}

/** What the stage takes: the chunks of a straight COPY rolled back, then every line the transform still gives out. */
async function* stageRows(replay: Buffer[], transform: SalesCopyTransform): AsyncGenerator<Buffer> {
  yield* replay;
  yield* transform.rowsInto('sales');
  yield* transform.rowsInto('stage');
}

/** Whether the rejected records pass the budget; exactly at it is within it. */
function overBudget(budget: ErrorBudget | undefined, received: number, rejected: number): boolean {
  if (!budget) return false;
  if (budget.maxErrors !== undefined && rejected > budget.maxErrors) return true;
  return budget.maxErrorRatio !== undefined && received > 0 && rejected / received > budget.maxErrorRatio;
}

/** The stored ingestion with its first row errors. */
function toSummary(row: IngestionListItem, errors: RowError[]): IngestionSummary {
  return { ...row, errors };
}

/** A run the client or a user ended (a disconnect, a too-slow body, DELETE) is cancelled; anything else failed. */
function endOf(error: Error): IngestionEnd {
  const cancelled =
    error instanceof ClientClosedRequestException ||
    error instanceof IngestionCancelledException ||
    error instanceof SalesBodyTimeoutException ||
    error instanceof SalesBodyTooSlowException;
  return cancelled ? 'cancelled' : 'failed';
}

function failureText(error: Error): string {
  if (error instanceof AppException) return error.message;
  if (isTransientFault(error)) return 'The database connection was lost; nothing was kept. Retry the upload.';
  return 'The upload failed on the server; nothing was kept.';
}

function csvCell(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
