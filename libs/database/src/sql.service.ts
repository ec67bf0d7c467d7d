import { bindTraceContext } from '@app/observability';
import type { DatabaseTimeouts } from './data-source-options';
import type { Pool, PoolClient } from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import type { DataSource } from 'typeorm';

/** What `copyFrom` reads: a byte stream or any (async) iterable of chunks in the COPY's format. */
export type CopySource = NodeJS.ReadableStream | AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

export interface CopyOptions {
  /** Aborting stops the COPY; nothing it sent is kept. */
  signal?: AbortSignal;
}

export interface TransactionOptions {
  /**
   * Work that may take long by design (a sales upload's COPY and merge): its statements run without
   * statement_timeout (SET LOCAL) and without the client's query timeout. Idle-in-transaction still applies.
   */
  longRunning?: boolean;
  /** Every statement of `work` reads one snapshot of the database (REPEATABLE READ, READ ONLY): reads that must agree with each other. */
  snapshot?: boolean;
}

/** pg's query_timeout for a statement that has none: the longest timer Node keeps (about 24.8 days). */
const NO_CLIENT_TIMEOUT_MS = 2_147_483_647;

/** node-postgres gives up on a statement whose answer does not come within query_timeout with this message. */
const CLIENT_TIMEOUT = 'Query read timeout';

/**
 * A fixed statement that each pg connection parses once, under its name, and then only binds
 * and executes: PostgreSQL skips parsing and, once it settles on a generic plan, planning.
 * For hot queries whose text never changes; a name stands for one text in the whole process.
 * Behind a transaction pooler (DATABASE_POOLER=transaction) it is sent unnamed, like any other text.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const PREPARED = new Map<string, string>();

export function prepared(name: string, text: string): PreparedStatement {
  const known = PREPARED.get(name);
  if (known !== undefined && known !== text) throw new Error(`The prepared statement ${name} is defined twice, with different text.`);
  PREPARED.set(name, text);
  return { name, text };
}

/** SQL text, or a prepared statement. */
export type Statement = string | PreparedStatement;

/** Parameterised SQL on the TypeORM pool's pg connections, without the ORM's per-query overhead. */
export abstract class SqlRunner {
  /**
   * @param named false: prepared statements go out unnamed (parsed and planned on every call), because a
   *   transaction pooler may run the next call on a server connection that never saw the name.
   */
  /**
   * @param queryTimeoutMs the client's wait for each statement's answer, when it differs from the pool's
   */
  protected constructor(
    private readonly runner: Pick<Pool | PoolClient, 'query'>,
    protected readonly named: boolean,
    private readonly queryTimeoutMs?: number,
  ) {}

  async rows<T>(statement: Statement, values: unknown[] = []): Promise<T[]> {
    return (await this.query(statement, values)).rows as T[];
  }

  async one<T>(statement: Statement, values: unknown[] = []): Promise<T | null> {
    return ((await this.query(statement, values)).rows[0] as T | undefined) ?? null;
  }

  private query(statement: Statement, given: unknown[]): Promise<{ rows: unknown[] }> {
    // An outbox INSERT's trace context (TRACE_CONTEXT_SQL) goes as one more parameter.
    const { text, values } = bindTraceContext(typeof statement === 'string' ? statement : statement.text, given);
    if (typeof statement === 'string' || !this.named) return this.runner.query(timed({ text, values }, this.queryTimeoutMs));
    return this.runner.query(timed({ name: statement.name, text, values }, this.queryTimeoutMs));
  }

  /**
   * One page of a list and the list's total, queried side by side:
   * `SELECT columns FROM source ORDER BY orderBy LIMIT … OFFSET …` and `SELECT count(*) FROM source`.
   * `source` ("table WHERE …") uses the first `sourceParams` of `params`; `orderBy` may use the rest.
   */
  async page<T>(
    query: { columns: string; source: string; orderBy: string; params: unknown[]; sourceParams?: number },
    limit: number,
    offset: number,
  ): Promise<{ rows: T[]; total: number }> {
    const { columns, source, orderBy, params } = query;
    const n = params.length;
    const [rows, count] = await Promise.all([
      this.rows<T>(`SELECT ${columns} FROM ${source} ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, limit, offset]),
      this.one<{ total: number }>(`SELECT count(*)::int AS total FROM ${source}`, params.slice(0, query.sourceParams ?? n)),
    ]);
    return { rows, total: count!.total };
  }

  /**
   * Streams `source` into `COPY … FROM STDIN` (`sql`) and resolves with the number of rows copied.
   * Backpressure is the socket's: a source is read only as fast as PostgreSQL takes it.
   * When the source fails, the server refuses the data or `signal` aborts, the COPY is cancelled
   * (CopyFail, so no row of it is kept) and the promise rejects with that cause.
   */
  copyFrom(sql: string, source: CopySource, options: CopyOptions = {}): Promise<number> {
    return this.onClient(async (client) => {
      const copy = client.query(timed(copyFromStdin(sql), this.queryTimeoutMs));
      await pipeline(source as AsyncIterable<Uint8Array>, copy, { signal: options.signal });
      return copy.rowCount;
    });
  }

  /** Runs `work` on a pg connection that stays this runner's (or is released after `work`). */
  protected abstract onClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
}

/** SQL on one dedicated connection: a transaction's, or one held by `Sql.withClient`. */
export class SqlClient extends SqlRunner {
  constructor(
    private readonly client: PoolClient,
    named = true,
    queryTimeoutMs?: number,
  ) {
    super(client, named, queryTimeoutMs);
  }

  protected onClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    return work(this.client);
  }
}

/** SQL on a pool: TypeORM's (DatabaseModule provides it on the app's data source), or a pg pool of its own (the commands). */
export class Sql extends SqlRunner {
  private readonly pool: Pool;

  /**
   * Without `config` (the commands, on a direct connection) statements are named and the pool's own timeouts apply.
   * Behind a transaction pooler no session carries the server-side timeouts: each transaction sets them (SET LOCAL).
   */
  constructor(
    source: DataSource | Pool,
    private readonly config?: Partial<DatabaseTimeouts>,
  ) {
    const pool = 'driver' in source ? (source.driver as unknown as { master: Pool }).master : source;
    super(pool, config?.DATABASE_POOLER !== 'transaction');
    this.pool = pool;
  }

  /**
   * Holds one connection of the pool for `work` (long transactions that `work` manages itself).
   * A connection `work` failed on is closed rather than reused. Behind a transaction pooler the
   * server connection may change between transactions: no session state (SET, temp tables, advisory locks).
   */
  withClient<T>(work: (client: SqlClient) => Promise<T>): Promise<T> {
    return this.onClient((client) => work(new SqlClient(client, this.named)));
  }

  /**
   * Runs `work` in one transaction on one connection (COPY into a temp staging table and the
   * merge that follows may share it); commits when `work` resolves, rolls back when it throws.
   * A connection whose answer did not come in time is closed, not rolled back (PostgreSQL rolls back
   * when it goes): a ROLLBACK would wait behind the silent statement as long again.
   */
  async transaction<T>(work: (tx: SqlClient) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const queryTimeoutMs = options.longRunning ? NO_CLIENT_TIMEOUT_MS : undefined;
    const client = await this.pool.connect();
    const loss = watchForLoss(client);
    let healthy = true;
    try {
      await client.query(timed({ text: this.begin(options) }, queryTimeoutMs));
      const result = await work(new SqlClient(client, this.named, queryTimeoutMs));
      await client.query(timed({ text: 'COMMIT' }, queryTimeoutMs));
      return result;
    } catch (error) {
      // A rolled-back connection is clean and goes back to the pool; one that cannot roll back is closed.
      if (error instanceof Error && error.message === CLIENT_TIMEOUT) healthy = false;
      else await client.query('ROLLBACK').catch(() => (healthy = false));
      throw error;
    } finally {
      client.release(loss.end() ?? !healthy);
    }
  }

  /** BEGIN, with the transaction's own timeouts where the session does not carry them or `longRunning` lifts one. */
  private begin(options: TransactionOptions): string {
    const settings: string[] = [];
    const config = this.config;
    const pooled = config?.DATABASE_POOLER === 'transaction';
    if (options.longRunning) settings.push('statement_timeout = 0');
    else if (pooled && config.DB_STATEMENT_TIMEOUT_SECONDS) settings.push(`statement_timeout = ${config.DB_STATEMENT_TIMEOUT_SECONDS * 1000}`);
    if (pooled && config.DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS)
      settings.push(`idle_in_transaction_session_timeout = ${config.DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS * 1000}`);
    // One round trip: a simple query may hold several statements.
    const begin = options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN';
    return [begin, ...settings.map((s) => `SET LOCAL ${s}`)].join('; ');
  }

  protected async onClient<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const loss = watchForLoss(client);
    try {
      const result = await work(client);
      client.release(loss.end());
      return result;
    } catch (error) {
      // true: close the connection, whatever state the failure left it in.
      loss.end();
      client.release(true);
      throw error;
    }
  }
}

/**
 * `query` with its own client timeout (pg's per-query `query_timeout`, read off the query object, a COPY stream's
 * too; missing from pg's types), or as it is when `timeoutMs` is undefined (the pool's applies).
 */
function timed<Q extends object>(query: Q, timeoutMs: number | undefined): Q {
  return timeoutMs === undefined ? query : Object.assign(query, { query_timeout: timeoutMs });
}

/**
 * pg-pool listens for errors only on idle connections. A checked-out connection that is lost
 * while no query runs on it (the backend terminated, an idle-in-transaction timeout, a server
 * restart while `work` awaits something else) emits 'error' with nobody listening, which would
 * end the process. Listened for here while the connection is out: `work`'s next query on it
 * fails instead, and `end()` returns the error so the connection is closed, not reused.
 */
function watchForLoss(client: PoolClient): { end(): Error | undefined } {
  let lost: Error | undefined;
  const onError = (error: Error) => (lost = error);
  client.on('error', onError);
  return {
    end: () => {
      client.off('error', onError);
      return lost;
    },
  };
}
