import type { IncomingMessage, ServerResponse } from 'node:http';
import { routeLabel, type Metrics } from '@app/observability';
import type { Logger } from 'pino';
import { lingerAfterEarlyAnswer } from './linger';
import { redactUrl } from './redact-url';
import { assignRequestId } from './request-id';

type TrackedRequest = IncomingMessage & { id?: unknown; originalUrl?: string; route?: { path?: unknown }; baseUrl?: string };

/** nginx's status for a request whose client closed the connection before the answer was sent. */
const CLIENT_CLOSED_REQUEST = 499;

/** Probes and scrapes: counted in the metrics, never logged. */
const UNLOGGED = new Set(['/health', '/health/live', '/metrics']);

/**
 * The first middleware of every app, and the only per-request one: it gives the request
 * its id (echoed in `X-Request-Id`), lingers after an early answer to a body (see
 * lingerAfterEarlyAnswer), and when the response closes records one latency observation
 * (method, route pattern, status) and writes one log line: "request completed", or
 * "request aborted" when the client left first, then counted and logged as 499 (nginx's
 * "client closed request"), not as the status the answer would have had. One 'close' listener serves both, so a
 * request pays for one listener and one clock read at each end.
 */
export function trackRequests(metrics: Metrics, logger: Logger, lingerMs: number) {
  return (req: TrackedRequest, res: ServerResponse, next: () => void): void => {
    const started = performance.now();
    assignRequestId(req, res);
    if (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0') lingerAfterEarlyAnswer(req, res, lingerMs);
    const logged = !UNLOGGED.has(req.url ?? '') && logger.isLevelEnabled('info');
    res.on('close', () => {
      const ms = performance.now() - started;
      const statusCode = res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST;
      metrics.observeRequest(req.method ?? 'GET', routeLabel(req), statusCode, ms / 1000);
      if (!logged) return;
      logger.info(
        { reqId: req.id, method: req.method, url: redactUrl(req.originalUrl ?? req.url ?? ''), statusCode, responseTime: Math.round(ms) },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    });
    next();
  };
}
