import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CopySource, Sql, SqlClient } from '@app/database';
import { Metrics } from '@app/observability';
import type { AuditEntry, AuditLog } from '@app/audit';
import type { IngestionListItem, RowError } from './ingestion.dto';
import { SALE_FIELD_NAMES } from './sale-fields';
import { SalesBodyWatch } from './sales-body.watch';
import { SalesConfig } from './sales.config';
import { IngestionCancelledException, IngestionEndedException, SalesBusyException } from './sales.exception';
import { SalesRollupRefresher } from './sales-rollup.refresher';
import { SalesHeartbeat } from './sales-heartbeat.service';
import type { IngestionStatus } from './sales-ingestion.entity';
import type { IngestionBeat, IngestionCounts, IngestionEnd, MergeResult, SalesRepository } from './sales.repository';
import { SalesService, type SalesCaller } from './sales.service';

type Public<T> = { [K in keyof T]: T[K] };
/** What a transaction of the fake holds until it commits. */
interface FakeTx {
  staged: string[];
  sales: Map<string, string>;
}
/** The text PostgreSQL answers a unique violation with, as the fake's COPY into sales would meet it. */
const UNIQUE_VIOLATION = 'duplicate key value violates unique constraint "sales_pkey"';
const txOf = (tx: SqlClient) => tx as unknown as FakeTx;

interface Run extends IngestionListItem {
  accountId: string;
  cancelRequested: boolean;
}

const ORDER_ID = SALE_FIELD_NAMES.indexOf('OrderId');
const PRODUCT_ID = SALE_FIELD_NAMES.indexOf('ProductId');

/**
 * SalesRepository in memory. It keeps what the COPY would have staged (`staged`), how many lines went
 * straight into sales (`direct`, in how many savepointed COPYs: `tried`) and what each merge wrote (`merges`),
 * applies a transaction's sales only when it commits, and can hold the account's turn (`turnFree`), a merge
 * (`holdMerge`) or hide a run being created from the next cancel request (`unseenByNextCancel`), as a not yet
 * committed INSERT is.
 */
class FakeSalesRepository implements Public<SalesRepository> {
  readonly runs = new Map<string, Run>();
  /** Stored sale lines by account, OrderId and ProductId: the line's COPY text. */
  readonly sales = new Map<string, string>();
  /** The COPY lines of the last staged upload, and the lines COPYed straight into sales (all uploads). */
  staged: string[] = [];
  direct = 0;
  tried = 0;
  /** Whether an upload finds its account's turn free (the direct path). */
  turnFree = true;
  readonly merges: Array<{ ingestionId: string; rows: number }> = [];
  readonly errors = new Map<string, RowError[]>();
  holdMerge: Promise<void> | null = null;
  mergeStarted: () => void = () => undefined;
  readonly unseenByNextCancel = new Set<string>();

  async createIngestion(accountId: string, _apiKeyId: string, format: string, id: string | null): Promise<string | null> {
    const key = id ?? randomUUID();
    if (this.runs.has(key)) return null;
    this.runs.set(key, {
      ingestion_id: key,
      accountId,
      status: 'running',
      stage: 'receiving',
      format: format as Run['format'],
      bytes: 0,
      received: 0,
      inserted: 0,
      updated: 0,
      rejected: 0,
      error_count: 0,
      errors_not_stored: 0,
      erased_customers: 0,
      failure: null,
      started_at: new Date().toISOString(),
      finished_at: null,
      duration_ms: 0,
      cancelRequested: false,
    });
    return key;
  }

  async statusOf(accountId: string, id: string): Promise<IngestionStatus | null> {
    this.unseenByNextCancel.delete(id);
    return this.own(accountId, id)?.status ?? null;
  }

  async beat(beats: IngestionBeat[]): Promise<string[]> {
    return beats.filter((b) => this.runs.get(b.id)?.cancelRequested).map((b) => b.id);
  }

  async requestCancel(_tx: SqlClient, accountId: string, id: string): Promise<boolean> {
    const run = this.unseenByNextCancel.has(id) ? undefined : this.own(accountId, id);
    if (run?.status !== 'running') return false;
    run.cancelRequested = true;
    return true;
  }

  async closeStale(): Promise<string[]> {
    return [];
  }

  async markEnded(id: string, status: IngestionEnd, failure: string, counts: IngestionCounts): Promise<void> {
    Object.assign(this.runs.get(id)!, this.counted(counts), { status, stage: null, failure, finished_at: new Date().toISOString() });
  }

  async takeTurn(_tx: SqlClient, accountId: string, withLines: boolean): Promise<{ empty: boolean } | null> {
    const empty = ![...this.sales.keys()].some((key) => key.startsWith(`${accountId}|`));
    return this.turnFree && (empty || withLines) ? { empty } : null;
  }

  async copyIntoSales(tx: SqlClient, source: CopySource, signal: AbortSignal): Promise<number> {
    const { sales } = txOf(tx);
    const lines = await copied(source, signal);
    const copy = new Map<string, string>();
    for (const line of lines) {
      const key = keyOf(line);
      if (copy.has(key) || sales.has(key) || this.sales.has(key)) throw Object.assign(new Error(UNIQUE_VIOLATION), { code: '23505' });
      copy.set(key, line);
    }
    for (const [key, line] of copy) sales.set(key, line);
    this.direct += lines.length;
    return lines.length;
  }

  async tryCopyIntoSales(tx: SqlClient, source: CopySource, signal: AbortSignal): Promise<number | null> {
    this.tried++;
    try {
      return await this.copyIntoSales(tx, source, signal);
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') throw error;
      return null;
    }
  }

  async createStage(): Promise<void> {}

  async copyIntoStage(tx: SqlClient, source: CopySource, signal: AbortSignal): Promise<number> {
    const lines = await copied(source, signal);
    txOf(tx).staged.push(...lines);
    this.staged = txOf(tx).staged;
    return lines.length;
  }

  async mergeStage(tx: SqlClient, ingestionId: string, accountId: string): Promise<number> {
    this.mergeStarted();
    await this.holdMerge;
    const { staged, sales } = txOf(tx);
    let inserted = 0;
    for (const line of staged) {
      const key = keyOf(line);
      if (!key.startsWith(`${accountId}|`)) throw new Error(`a staged line of another account: ${line}`);
      if (!sales.has(key) && !this.sales.has(key)) inserted++;
      sales.set(key, line);
    }
    this.merges.push({ ingestionId, rows: staged.length });
    return inserted;
  }

  async markDaysDirty(): Promise<void> {}

  async storeErrors(_tx: SqlClient, ingestionId: string, errors: RowError[]): Promise<void> {
    this.errors.set(ingestionId, [...errors]);
  }

  async erasedCustomers(): Promise<number> {
    return 0;
  }

  async markCompleted(_tx: SqlClient, id: string, counts: IngestionCounts, merged: MergeResult): Promise<boolean> {
    const run = this.runs.get(id)!;
    if (run.cancelRequested) return false;
    Object.assign(run, this.counted(counts), {
      status: 'completed',
      stage: null,
      inserted: merged.inserted,
      updated: merged.updated,
      erased_customers: merged.erasedCustomers,
      finished_at: new Date().toISOString(),
    });
    return true;
  }

  async findIngestion(accountId: string, id: string): Promise<IngestionListItem | null> {
    const run = this.own(accountId, id);
    if (!run) return null;
    const { accountId: _a, cancelRequested: _c, ...item } = run;
    return item;
  }

  async listIngestions(accountId: string, status: IngestionStatus | undefined): Promise<{ rows: IngestionListItem[]; total: number }> {
    const rows = [...this.runs.values()].filter((r) => r.accountId === accountId && (status === undefined || r.status === status));
    return { rows, total: rows.length };
  }

  async rowsByHour(): Promise<Array<{ hour: string; inserted: number; updated: number; rejected: number }>> {
    return [];
  }

  async errorsAfter(ingestionId: string, after: string, limit: number): Promise<Array<RowError & { id: string }>> {
    return (this.errors.get(ingestionId) ?? [])
      .map((e, i) => ({ ...e, id: String(i + 1) }))
      .filter((e) => Number(e.id) > Number(after))
      .slice(0, limit);
  }

  /** Sales a transaction writes are kept only when it commits (`work` resolves). */
  async transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T> {
    const tx: FakeTx = { staged: [], sales: new Map() };
    const result = await work(tx as unknown as SqlClient);
    for (const [key, line] of tx.sales) this.sales.set(key, line);
    return result;
  }

  private own(accountId: string, id: string): Run | undefined {
    const run = this.runs.get(id);
    return run?.accountId === accountId ? run : undefined;
  }

  private counted(c: IngestionCounts): Partial<Run> {
    return { bytes: c.bytes, received: c.received, rejected: c.rejected, error_count: c.errorCount, errors_not_stored: c.errorsNotStored };
  }
}

/** The key (account, OrderId, ProductId) of a COPY line (`account_id, ingestion_id, <fields>`). */
function keyOf(line: string): string {
  const cells = line.split('\t');
  return `${cells[0]}|${cells[2 + ORDER_ID]}|${cells[2 + PRODUCT_ID]}`;
}

/** The lines of COPY text `source` gives. */
async function copied(source: CopySource, signal: AbortSignal): Promise<string[]> {
  let text = '';
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => ((text += chunk.toString()), done()) });
  await pipeline(source as AsyncIterable<Buffer>, sink, { signal });
  return text.split('\n').filter((l) => l !== '');
}

/** A request body the test writes; `complete` as Node sets it once the body's end arrived. */
class Body extends PassThrough {
  readonly headers: Record<string, string> = {};
  complete = false;
  constructor() {
    super();
    this.once('end', () => (this.complete = true));
  }
}

const csv = (...rows: Array<Record<string, string>>): string => {
  const names = Object.keys(rows[0] ?? { OrderId: '' });
  return [names.join(';'), ...rows.map((r) => names.map((n) => r[n]).join(';'))].join('\n') + '\n';
};
const sale = (n: number, overrides: Record<string, string> = {}): Record<string, string> => ({
  OrderId: `A-${n}`,
  OrderDate: '2026-11-20T10:15:00.000Z',
  OrderStatus: 'paid',
  ProductId: `P-${n}`,
  ProductPrice: '12.5',
  StoreId: 'S-1',
  CustomerCPF_CNPJ: '12345678901',
  CustomerPhone: '5511999990000',
  CustomerEmail: 'ana@example.com',
  ...overrides,
});

/** Who cancels, in these tests. */
const ACTOR = { credentialId: 'k1', credentialName: 'etl', ip: null };

function setup(settings: Partial<SalesConfig> = {}) {
  const config = Object.assign(new SalesConfig(), settings);
  const repository = new FakeSalesRepository();
  const asRepository = repository as unknown as SalesRepository;
  // The fake's transactions stand for the database's: the cancel request and its record commit together.
  const asSql = repository as unknown as Sql;
  const audited: AuditEntry[] = [];
  const audit = { record: async (_tx: unknown, _actor: unknown, entry: AuditEntry) => void audited.push(entry) } as unknown as AuditLog;
  const service = new SalesService(
    asRepository,
    config,
    new Metrics('test'),
    new SalesBodyWatch(config),
    new SalesHeartbeat(asRepository, config),
    asSql,
    audit,
    { uploadEnded: () => undefined } as unknown as SalesRollupRefresher,
  );
  /** Starts an upload whose body the test writes; `id` is the X-Ingestion-Id. */
  const start = (caller: SalesCaller, format: 'csv' | 'json' = 'csv', id: string | null = null) => {
    const body = new Body();
    const answer = service.ingest(caller, { format, body: body as unknown as IncomingMessage, id });
    // Failures are asserted where the test expects them; this keeps the others from going unhandled meanwhile.
    answer.catch(() => undefined);
    return { body, answer };
  };
  const upload = (caller: SalesCaller, text: string, format: 'csv' | 'json' = 'csv') => {
    const { body, answer } = start(caller, format);
    body.end(text);
    return answer;
  };
  return { service, repository, start, upload, audited };
}

const caller = (): SalesCaller => ({ accountId: randomUUID(), apiKeyId: randomUUID() });
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SalesService.run (in-memory repository)', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('COPYs the valid records of a first upload straight into sales, stores one error per problem and answers the summary', async () => {
    const { repository, upload, service } = setup();
    const me = caller();
    const summary = await upload(me, csv(sale(1), sale(2, { ProductPrice: '10' })));
    expect(summary).toMatchObject({ status: 'completed', stage: null, format: 'csv', received: 2, inserted: 1, updated: 0, rejected: 1, error_count: 1 });
    const error = { line: 3, record: 2, field: 'ProductPrice', reason: 'must be a number with a decimal part, such as 10.0' };
    expect(summary.errors).toEqual([error]);
    expect((await service.summary(me.accountId, summary.ingestion_id)).errors).toEqual([error]);
    expect({ direct: repository.direct, staged: repository.staged, merges: repository.merges }).toEqual({ direct: 1, staged: [], merges: [] });
    expect([...repository.sales.keys()]).toEqual([`${me.accountId}|A-1|P-1`]);
  });

  it('stages from the first line whose key repeats on, so the last occurrence wins, and all of a later upload that is not large', async () => {
    const { repository, upload } = setup();
    const me = caller();
    const first = await upload(me, csv(sale(1), sale(2), sale(1, { ProductPrice: '13.25' }), sale(3)));
    expect(first).toMatchObject({ status: 'completed', received: 4, inserted: 3, updated: 1 });
    expect({ direct: repository.direct, staged: repository.staged.length }).toEqual({ direct: 2, staged: 2 });
    expect(repository.sales.get(`${me.accountId}|A-1|P-1`)).toContain('\t13.25\t');
    const second = await upload(me, csv(sale(3), sale(4)));
    expect(second).toMatchObject({ status: 'completed', inserted: 1, updated: 1 });
    expect({ direct: repository.direct, staged: repository.staged.length, tried: repository.tried }).toEqual({ direct: 2, staged: 2, tried: 0 });
    expect(repository.sales.size).toBe(4);
  });

  it('COPYs a later large upload straight into sales in savepointed segments; the first that meets a stored key and the rest are staged', async () => {
    const { repository, start } = setup({ INGEST_STRAIGHT_SEGMENT_BYTES: 1, INGEST_STRAIGHT_MIN_BYTES: 0 });
    const me = caller();
    const first = start(me);
    first.body.end(csv(sale(1)));
    await first.answer;
    const { body, answer } = start(me);
    // One chunk a segment: [2, 3], [4, 5], then [1 (stored, new price), 6] and [7].
    const text = csv(sale(2), sale(3), sale(4), sale(5), sale(1, { ProductPrice: '13.25' }), sale(6), sale(7));
    body.headers['content-length'] = String(Buffer.byteLength(text));
    const [header, ...lines] = text.split(/(?<=\n)/);
    for (const part of [header + lines[0] + lines[1], lines[2] + lines[3], lines[4] + lines[5]]) {
      body.write(part);
      await nextTick();
    }
    body.end(lines[6]);
    expect(await answer).toMatchObject({ status: 'completed', received: 7, inserted: 6, updated: 1 });
    expect({ direct: repository.direct, staged: repository.staged.length, tried: repository.tried }).toEqual({ direct: 1 + 4, staged: 3, tried: 3 });
    expect(repository.sales.size).toBe(7);
    expect(repository.sales.get(`${me.accountId}|A-1|P-1`)).toContain('\t13.25\t');
  });

  it('stages what comes after the 48th savepointed segment of an upload', async () => {
    const { repository, start, upload } = setup({ INGEST_STRAIGHT_SEGMENT_BYTES: 1, INGEST_STRAIGHT_MIN_BYTES: 0 });
    const me = caller();
    await upload(me, csv(sale(0)));
    const { body, answer } = start(me);
    const text = csv(...Array.from({ length: 60 }, (_, i) => sale(i + 1)));
    body.headers['content-length'] = String(Buffer.byteLength(text));
    const [header, ...lines] = text.split(/(?<=\n)/);
    body.write(header);
    for (const line of lines) {
      body.write(line);
      await nextTick();
    }
    body.end();
    expect(await answer).toMatchObject({ status: 'completed', received: 60, inserted: 60, updated: 0 });
    expect(repository.tried).toBe(48);
    expect(repository.staged.length).toBeGreaterThan(0);
    expect(repository.direct - 1 + repository.staged.length).toBe(60);
  });

  it('updates a line sent again (JSON), the last occurrence in a file winning', async () => {
    const { repository, upload } = setup();
    const me = caller();
    await upload(me, csv(sale(1)));
    const json = JSON.stringify([
      { ...sale(1), ProductPrice: 11.5 },
      { ...sale(1), ProductPrice: 13.25 },
    ]).replace(/"ProductPrice":"([\d.]+)"/g, '"ProductPrice":$1');
    const summary = await upload(me, json, 'json');
    expect(summary).toMatchObject({ status: 'completed', received: 2, inserted: 0, updated: 2 });
    expect(repository.sales.get(`${me.accountId}|A-1|P-1`)).toContain('\t13.25\t');
  });

  it('keeps nothing of a run cancelled while its merge waits, and answers the upload 409', async () => {
    const { service, repository, start, audited } = setup();
    const me = caller();
    repository.turnFree = false;
    let release!: () => void;
    repository.holdMerge = new Promise<void>((resolve) => (release = resolve));
    const merging = new Promise<void>((resolve) => (repository.mergeStarted = resolve));
    const { body, answer } = start(me);
    body.end(csv(sale(1)));
    await merging;
    const id = [...repository.runs.keys()][0];
    const cancelled = await service.cancel(me.accountId, id, ACTOR);
    expect(cancelled).toMatchObject({ ingestion_id: id, status: 'running' });
    expect(audited).toEqual([
      { tenantId: me.accountId, action: 'ingestion.cancelled', targetType: 'ingestion', targetId: id, after: { cancel_requested: true } },
    ]);
    release();
    await expect(answer).rejects.toBeInstanceOf(IngestionCancelledException);
    expect(repository.runs.get(id)).toMatchObject({ status: 'cancelled', stage: null, inserted: 0 });
    expect(repository.sales.size).toBe(0);
  });

  it('lets the cancel win over a run whose row appears between the cancel request and the status read (issue 34, 2.7)', async () => {
    const { service, repository, start } = setup();
    const me = caller();
    const id = randomUUID();
    const { body, answer } = start(me, 'csv', id);
    await nextTick();
    // The request misses the row (its INSERT not yet committed); the read that follows sees it running.
    repository.unseenByNextCancel.add(id);
    const cancelled = await service.cancel(me.accountId, id, ACTOR);
    expect(cancelled).toMatchObject({ ingestion_id: id, status: 'running' });
    body.end(csv(sale(1)));
    await expect(answer).rejects.toBeInstanceOf(IngestionCancelledException);
    expect(repository.runs.get(id)!.status).toBe('cancelled');
  });

  it('answers a cancel of an ended run 409 naming how it ended', async () => {
    const { service, upload } = setup();
    const me = caller();
    const { ingestion_id: id } = await upload(me, csv(sale(1)));
    const refusal = await service.cancel(me.accountId, id, ACTOR).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(IngestionEndedException);
    expect((refusal as IngestionEndedException).message).toBe('The ingestion already ended: completed.');
  });

  it('keeps the last free upload slot for an account that holds none', async () => {
    const { start } = setup({ INGEST_MAX_CONCURRENT_UPLOADS: 4, INGEST_MAX_CONCURRENT_UPLOADS_PER_ACCOUNT: 2 });
    const [a, b, c, d] = [caller(), caller(), caller(), caller()];
    const held = [start(a), start(a), start(b)];
    await nextTick();
    // B holds one slot and only one is left: it stays free for an account without any.
    const second = start(b);
    await expect(second.answer).rejects.toMatchObject({ message: 'Your account already runs as many uploads as it may at once; retry shortly.' });
    held.push(start(c));
    await nextTick();
    await expect(start(d).answer).rejects.toBeInstanceOf(SalesBusyException);
    for (const { body } of held) body.end(csv(sale(1)));
    expect((await Promise.all(held.map((h) => h.answer))).map((s) => s.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
  });
});
