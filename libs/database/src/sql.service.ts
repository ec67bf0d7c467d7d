import { Injectable } from '@nestjs/common';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';

type Runner = Pick<Pool | PoolClient, 'query'>;

/** Parameterised SQL on the TypeORM pool's pg connections, without the ORM's per-query overhead. */
export class SqlRunner {
  constructor(protected readonly runner: Runner) {}

  async rows<T>(text: string, values: unknown[] = []): Promise<T[]> {
    return (await this.runner.query(text, values)).rows as T[];
  }

  async one<T>(text: string, values: unknown[] = []): Promise<T | null> {
    return ((await this.runner.query(text, values)).rows[0] as T | undefined) ?? null;
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
}

@Injectable()
export class Sql extends SqlRunner {
  private readonly pool: Pool;

  constructor(dataSource: DataSource) {
    const pool = (dataSource.driver as unknown as { master: Pool }).master;
    super(pool);
    this.pool = pool;
  }

  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  async transaction<T>(work: (tx: SqlRunner) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(new SqlRunner(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
