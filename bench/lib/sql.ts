import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/**
 * The exact SQL texts the docstore sends for the benchmarked routes, captured from the
 * built repositories (dist/) with a recording runner, so the floor servers run the same
 * statements by construction rather than by copy. Parameters are positional:
 *   get:       [client, environment, context, type, key]
 *   put:       [client, environment, context, type, key, data, expires_at, expected_version, trace_context]
 *   schema:    [client, environment, context, type]
 *   bulk:      [client, environment, context, type, items_json, trace_context]
 *   create:    [client, environment, context, type, key, data, expires_at, trace_context]
 */
export interface BenchSql {
  get: BenchStatement;
  put: BenchStatement;
  schema: BenchStatement;
  bulk: BenchStatement;
  create: BenchStatement;
}

/** A statement's text, and its name when the docstore sends it as a prepared statement (the floors then do too). */
export interface BenchStatement {
  text: string;
  name?: string;
}

/** The pg query config of a captured statement with its parameters. */
export const bound = (statement: BenchStatement, values: unknown[]) => ({ ...statement, values });

interface Call extends BenchStatement {
  values: unknown[];
}

/** A pg client that records what it is sent and answers with no rows. */
class Recorder {
  readonly calls: Call[] = [];
  query(sent: string | Call, values: unknown[] = []): Promise<{ rows: unknown[] }> {
    this.calls.push(typeof sent === 'string' ? { text: sent, values } : sent);
    return Promise.resolve({ rows: [] });
  }
}

const SCOPE = { clientId: 'c', environment: 'e', context: 'x', type: 't' };
const SCOPE_VALUES = ['c', 'e', 'x', 't'];
/** The webhook outbox's trace context parameter (libs/observability TRACE_CONTEXT_SQL), bound last: NULL with tracing off. */
export const TRACE_OFF = null;

export async function captureSql(distAppRoot: string): Promise<BenchSql> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DocumentsRepository } = require(path.join(distAppRoot, 'documents/documents.repository.js'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { SchemasRepository } = require(path.join(distAppRoot, 'schemas/schemas.repository.js'));
  // The built Sql runner on a recording client: every helper (rows, one, page) sends its SQL as the app's does.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { SqlClient } = require(path.join(distAppRoot, '../../../libs/database/src/sql.service.js'));
  // The built webhook engine writes each write's events into the same statement, as in the app.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { WebhookOutboxRepository } = require(path.join(distAppRoot, '../../../libs/webhooks/src/webhook-outbox.repository.js'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { WebhookTables } = require(path.join(distAppRoot, '../../../libs/webhooks/src/webhook-tables.js'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { WebhookEvents } = require(path.join(distAppRoot, '../../../libs/webhooks/src/webhook-events.service.js'));
  const rec = new Recorder();
  const db = new SqlClient(rec);
  const events = new WebhookEvents(new WebhookOutboxRepository(db, new WebhookTables({ driver: { schema: 'docstore' } })), undefined, undefined);
  const docs = new DocumentsRepository(db, events);
  const schemas = new SchemasRepository(db);

  const take = (expected: unknown[]): BenchStatement => {
    const call = rec.calls.shift();
    if (!call) throw new Error('bench: the repository sent no SQL where one statement was expected');
    if (!isDeepStrictEqual(call.values, expected)) {
      throw new Error(
        `bench: the docstore's SQL parameters changed shape: expected ${JSON.stringify(expected)}, got ${JSON.stringify(call.values)}; update bench/lib/sql.ts and the floor servers`,
      );
    }
    return call.name === undefined ? { text: call.text } : { text: call.text, name: call.name };
  };

  await docs.find(SCOPE, 'k', false);
  const get = take([...SCOPE_VALUES, 'k']);
  await docs.update(SCOPE, 'k', { data: { a: 1 }, expiresAt: null });
  const put = take([...SCOPE_VALUES, 'k', { a: 1 }, null, null, TRACE_OFF]);
  await schemas.find(SCOPE);
  const schema = take(SCOPE_VALUES);
  await docs.bulkUpsert(SCOPE, [{ key: 'k', data: { a: 1 }, expiresAt: null }], db);
  const bulk = take([...SCOPE_VALUES, JSON.stringify([{ key: 'k', data: { a: 1 }, expires_at: null }]), TRACE_OFF]);
  await docs.create(SCOPE, 'k', { data: { a: 1 }, expiresAt: null });
  const create = take([...SCOPE_VALUES, 'k', { a: 1 }, null, TRACE_OFF]);
  return { get, put, schema, bulk, create };
}

/** Rows of a bulk body as the docstore's bulkUpsert serialises them. */
export function bulkItemsJson(documents: Array<{ key: string; data: unknown; expires_at?: string | null }>): string {
  return JSON.stringify(documents.map((d) => ({ key: d.key, data: d.data, expires_at: d.expires_at ?? null })));
}
