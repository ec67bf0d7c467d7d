import { Readable } from 'node:stream';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { scratchDatabase } from './support/scratch-database';
import { DatabaseConfig } from '../src/database.config';
import { prepared, Sql } from '../src/sql.service';

function* lines(count: number, fail?: { after: number; error: Error }): Generator<string> {
  for (let i = 1; i <= count; i++) {
    if (fail && i > fail.after) throw fail.error;
    yield `${i}\tkey-${i}\n`;
  }
}

describe('Sql.copyFrom, withClient and transaction (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let sql: Sql;
  const count = async () => (await sql.one<{ n: number }>('SELECT count(*)::int AS n FROM items'))!.n;

  beforeAll(async () => {
    // One connection in the pool: a connection that is not released hangs the next test.
    dataSource = await new DataSource({ type: 'postgres', url: await scratchDatabase('sql'), poolSize: 1 }).initialize();
    sql = new Sql(dataSource);
    await sql.rows('CREATE TABLE items (id int PRIMARY KEY, key text NOT NULL)');
  });

  afterAll(() => dataSource.destroy());
  beforeEach(() => sql.rows('TRUNCATE items'));

  it('copies 10,000 rows from a stream and resolves with the count', async () => {
    await expect(sql.copyFrom('COPY items (id, key) FROM STDIN', Readable.from(lines(10_000)))).resolves.toBe(10_000);
    expect(await count()).toBe(10_000);
    expect(await sql.one('SELECT key FROM items WHERE id = 9999')).toEqual({ key: 'key-9999' });
  });

  it('accepts any iterable of chunks, and Buffers', async () => {
    await expect(sql.copyFrom('COPY items FROM STDIN', [Buffer.from('1\ta\n2\tb\n')])).resolves.toBe(2);
    expect(await count()).toBe(2);
  });

  it('keeps nothing when aborted mid-stream, and releases the connection', async () => {
    const controller = new AbortController();
    async function* slow() {
      for (let i = 1; ; i++) {
        if (i === 5_000) controller.abort();
        yield `${i}\tkey-${i}\n`;
        if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
    await expect(sql.copyFrom('COPY items FROM STDIN', slow(), { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(await count()).toBe(0);
  });

  it('rejects with the source error, keeping nothing', async () => {
    const error = new Error('upload broke');
    await expect(sql.copyFrom('COPY items FROM STDIN', Readable.from(lines(10_000, { after: 3_000, error })))).rejects.toBe(error);
    expect(await count()).toBe(0);
  });

  it('rejects with the server error on bad data, keeping nothing', async () => {
    await expect(sql.copyFrom('COPY items FROM STDIN', ['1\ta\nnot-a-number\tb\n'])).rejects.toMatchObject({ code: '22P02' });
    await expect(sql.copyFrom('COPY items FROM STDIN', ['1\ta\n1\tb\n'])).rejects.toMatchObject({ code: '23505' });
    expect(await count()).toBe(0);
  });

  it('stages with COPY into a temp table and merges in one transaction', async () => {
    await sql.rows(`INSERT INTO items VALUES (1, 'old')`);
    const merged = await sql.transaction(async (tx) => {
      await tx.rows('CREATE TEMP TABLE staging (LIKE items) ON COMMIT DROP');
      await tx.copyFrom('COPY staging FROM STDIN', Readable.from(lines(1_000)));
      return (await tx.rows('INSERT INTO items SELECT * FROM staging ON CONFLICT (id) DO UPDATE SET key = excluded.key RETURNING id')).length;
    });
    expect(merged).toBe(1_000);
    expect(await count()).toBe(1_000);
    expect(await sql.one('SELECT key FROM items WHERE id = 1')).toEqual({ key: 'key-1' });
  });

  it('rolls the whole transaction back when the stream fails inside it', async () => {
    const error = new Error('upload broke');
    await expect(
      sql.transaction(async (tx) => {
        await tx.rows(`INSERT INTO items VALUES (0, 'before the copy')`);
        await tx.copyFrom('COPY items FROM STDIN', Readable.from(lines(10_000, { after: 2_000, error })));
      }),
    ).rejects.toBe(error);
    expect(await count()).toBe(0);
  });

  it('withClient keeps one connection (and its session) for the whole callback', async () => {
    const pids = await sql.withClient(async (client) => {
      await client.rows('CREATE TEMP TABLE mine (n int)');
      await client.copyFrom('COPY mine FROM STDIN', ['1\n2\n3\n']);
      const total = await client.one<{ n: number }>('SELECT sum(n)::int AS n FROM mine');
      expect(total).toEqual({ n: 6 });
      return [await client.one('SELECT pg_backend_pid() AS pid'), await client.one('SELECT pg_backend_pid() AS pid')];
    });
    expect(pids[0]).toEqual(pids[1]);
  });

  it('withClient closes a connection its callback failed on, and the pool goes on', async () => {
    const before = await sql.one<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await expect(
      sql.withClient(async (client) => {
        await client.rows('BEGIN');
        throw new Error('left a transaction open');
      }),
    ).rejects.toThrow('left a transaction open');
    const after = await sql.one<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(after!.pid).not.toBe(before!.pid);
  });

  it('survives a transaction whose connection is terminated while it waits: the transaction fails, the pool goes on', async () => {
    const admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const failed = sql.transaction(async (tx) => {
        const [{ pid }] = await tx.rows<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await tx.rows('INSERT INTO items VALUES (7001, $1)', ['lost']);
        // Idle in the transaction (as while awaiting Redis or a client's bytes) when it is cut.
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        await new Promise((r) => setTimeout(r, 200));
        await tx.rows('SELECT 1');
      });
      await expect(failed).rejects.toThrow();
      expect(await sql.one<{ n: number }>('SELECT count(*)::int AS n FROM items WHERE id = 7001')).toEqual({ n: 0 });
      await sql.transaction((tx) => tx.rows('SELECT 1'));
    } finally {
      await admin.end();
    }
  });

  it('parses a prepared statement once per connection and answers it like plain SQL', async () => {
    await sql.copyFrom('COPY items FROM STDIN', ['9001\tprepared-a\n9002\tprepared-b\n']);
    const byId = prepared('test.item_by_id', 'SELECT key FROM items WHERE id = $1');
    const keys = await sql.withClient(async (client) => {
      const found = [await client.one(byId, [9001]), await client.one(byId, [9002]), await client.rows(byId, [-1])];
      const statements = await client.rows<{ statement: string }>(`SELECT statement FROM pg_prepared_statements WHERE name = 'test.item_by_id'`);
      expect(statements).toEqual([{ statement: byId.text }]);
      return found;
    });
    expect(keys).toEqual([{ key: 'prepared-a' }, { key: 'prepared-b' }, []]);
  });

  it('sends prepared statements unnamed behind a transaction pooler (DATABASE_POOLER=transaction)', async () => {
    await sql.copyFrom('COPY items FROM STDIN', ['9003\tunnamed\n']);
    const pooled = new Sql(dataSource, Object.assign(new DatabaseConfig(), { DATABASE_URL: 'postgres://x', DATABASE_POOLER: 'transaction' as const }));
    const byId = prepared('test.unnamed_by_id', 'SELECT key FROM items WHERE id = $1');
    const found = await pooled.withClient(async (client) => {
      const rows = [await client.one(byId, [9003]), await client.one(byId, [9003])];
      expect(await client.rows(`SELECT name FROM pg_prepared_statements WHERE name = 'test.unnamed_by_id'`)).toEqual([]);
      return rows;
    });
    expect(found).toEqual([{ key: 'unnamed' }, { key: 'unnamed' }]);
    await expect(pooled.transaction((tx) => tx.one(byId, [9003]))).resolves.toEqual({ key: 'unnamed' });
  });

  it('refuses one name for two statement texts', () => {
    prepared('test.twice', 'SELECT 1');
    expect(() => prepared('test.twice', 'SELECT 1')).not.toThrow();
    expect(() => prepared('test.twice', 'SELECT 2')).toThrow('defined twice');
  });
});
