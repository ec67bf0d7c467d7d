import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'pg';
import { bound, bulkItemsJson, TRACE_OFF, type BenchSql } from '../lib/sql';

/**
 * The docstore's raw floor: node:http + pg and a regex router, nothing else. Same routes and
 * SQL (BENCH_SQL, captured from the build) on a pg Pool of the docstore's size.
 */
const SQL: BenchSql = JSON.parse(process.env.BENCH_SQL!);
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE) });
const ROUTE = /^\/api\/v1\/client\/([^/]+)\/([^/]+)\/context\/([^/]+)\/type\/([^/]+)\/([^/?]+)$/;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<{ data: unknown; documents: Array<{ key: string; data: unknown }> }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const m = ROUTE.exec(req.url ?? '/');
  if (!m) return send(res, 404, { message: 'Not found' });
  const [client, environment, context, type, key] = m.slice(1).map(decodeURIComponent);
  const scope = [client.toLowerCase(), environment, context, type];
  if (req.method === 'GET') {
    const { rows } = await pool.query(bound(SQL.get, [...scope, key]));
    return rows[0] ? send(res, 200, rows[0]) : send(res, 404, { message: 'Not found' });
  }
  if (req.method === 'PUT') {
    const body = await readJson(req);
    const { rows } = await pool.query(bound(SQL.put, [...scope, key, body.data, null, null, TRACE_OFF]));
    if (!rows[0]) return send(res, 404, { message: 'Not found' });
    // The statement also counts the webhook events it recorded; the docstore answers without it, so the floor does too.
    const { webhook_engine_deliveries: _count, ...row } = rows[0];
    return send(res, 200, row);
  }
  if (req.method === 'POST' && key === 'bulk') {
    const body = await readJson(req);
    const db = await pool.connect();
    try {
      await db.query('BEGIN');
      await db.query(bound(SQL.schema, scope));
      const { rows } = await db.query(bound(SQL.bulk, [...scope, bulkItemsJson(body.documents), TRACE_OFF]));
      await db.query('COMMIT');
      const position = new Map(body.documents.map((d, i) => [d.key, i]));
      return send(
        res,
        200,
        rows.sort((a, b) => position.get(a.key)! - position.get(b.key)!),
      );
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      db.release();
    }
  }
  return send(res, 404, { message: 'Not found' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => send(res, 500, { message: String(error?.message ?? error) }));
});

void pool.query('SELECT 1').then(() => server.listen(Number(process.env.PORT), '127.0.0.1'));

process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().finally(() => process.exit(0));
});
