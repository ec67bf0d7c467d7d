import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

const SANE = /^[\w.-]{1,128}$/;

/**
 * The request's id: an incoming sane X-Request-Id, else a new UUID. Set once, echoed
 * in the response header, and reused by the logger so log lines and responses agree.
 */
export function assignRequestId(req: IncomingMessage & { id?: unknown }, res: ServerResponse): string {
  if (typeof req.id === 'string') return req.id;
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SANE.test(incoming) ? incoming : randomUUID();
  req.id = id;
  res.setHeader('X-Request-Id', id);
  return id;
}
