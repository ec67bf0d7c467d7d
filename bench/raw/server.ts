import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { bound, bulkItemsJson, gteFilter, type BenchSql } from '../lib/sql';

/**
 * Floor B: node:http + pg, nothing else. Same routes and SQL (BENCH_SQL, captured from
 * the docstore) on a pg Pool of the same size.
 */
const SQL: BenchSql = JSON.parse(process.env.BENCH_SQL!);
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
const ROUTE = /^\/api\/v1\/client\/([^/]+)\/([^/]+)\/context\/([^/]+)\/type\/([^/]+)(?:\/([^/]+))?$/;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** A PUT body ({data}) or a bulk body ({documents}); the floor trusts the bench to send the right one. */
async function readJson(req: IncomingMessage): Promise<{ data: unknown; documents: Array<{ key: string; data: unknown }> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [pathname, search = ''] = (req.url ?? '/').split('?', 2);
  const m = ROUTE.exec(pathname);
  if (!m) return send(res, 404, { message: 'Not found' });
  const scope = [decodeURIComponent(m[1]).toLowerCase(), decodeURIComponent(m[2]), decodeURIComponent(m[3]), decodeURIComponent(m[4])];
  const key = m[5] === undefined ? undefined : decodeURIComponent(m[5]);

  if (req.method === 'GET' && key !== undefined) {
    const { rows } = await pool.query(bound(SQL.get, [...scope, key]));
    return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { message: 'Not found' });
  }
  if (req.method === 'PUT' && key !== undefined) {
    const body = await readJson(req);
    const { rows } = await pool.query(bound(SQL.put, [...scope, key, body.data, null, null]));
    return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { message: 'Not found' });
  }
  if (req.method === 'GET' && key === undefined) {
    const q = Object.fromEntries(new URLSearchParams(search));
    const filter = gteFilter(q)!;
    const perPage = Number(q.per_page ?? 15);
    const offset = (Number(q.page ?? 1) - 1) * perPage;
    const params = [...scope, [filter.field], filter.value];
    const [rows, count] = await Promise.all([pool.query(bound(SQL.listRows, [...params, perPage, offset])), pool.query(bound(SQL.listCount, params))]);
    return send(res, 200, { data: rows.rows, total: count.rows[0].total, per_page: perPage });
  }
  if (req.method === 'POST' && key === 'bulk') {
    const body = await readJson(req);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(bound(SQL.schema, scope));
      const { rows } = await client.query(bound(SQL.bulk, [...scope, bulkItemsJson(body.documents)]));
      await client.query('COMMIT');
      const position = new Map<string, number>(body.documents.map((d: { key: string }, i: number) => [d.key, i]));
      return send(res, 200, rows.sort((a, b) => position.get(a.key)! - position.get(b.key)!));
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
  return send(res, 404, { message: 'Not found' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => send(res, 500, { message: String(error?.message ?? error) }));
});

pool
  .query('SELECT 1')
  .then(() => server.listen(Number(process.env.PORT), '127.0.0.1'))
  .catch((error) => {
    process.stderr.write(`raw server: ${error.message}\n`);
    process.exit(1);
  });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
    void pool.end().finally(() => process.exit(0));
  });
}
