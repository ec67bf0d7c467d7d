import type { IncomingMessage } from 'node:http';

type RoutedRequest = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };

/** The label of requests no route matched (404s, static /docs assets), so scanners cannot grow the label set. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The route pattern Express matched (`/api/v1/client/:client/...`), never the raw URL. */
export function routeLabel(req: RoutedRequest): string {
  const path = req.route?.path;
  return typeof path === 'string' ? (req.baseUrl ?? '') + path : UNMATCHED_ROUTE;
}
