import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from './metrics.service';

type RoutedRequest = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };

/** The label of requests no route matched (404s, static /docs assets), so scanners cannot grow the label set. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Express middleware: on every finished (or aborted) response, one observation of its
 * latency labelled by method, route pattern (`/api/v1/client/:client/...`) and status.
 * Costs one Map lookup and one histogram observe per request.
 */
export function httpMetrics(metrics: Metrics) {
  return (req: RoutedRequest, res: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    res.once('close', () => {
      const path = req.route?.path;
      const route = typeof path === 'string' ? (req.baseUrl ?? '') + path : UNMATCHED_ROUTE;
      metrics.observeRequest(req.method ?? 'GET', route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}
