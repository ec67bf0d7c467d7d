/**
 * What the Prometheus request metrics cost each request, in CPU time measured in-process (best
 * of several trials, so it holds on a busy machine): what libs/server's request middleware does
 * for them when a response closes (the route label and `Metrics.observeRequest` of the built
 * docstore) on a real IncomingMessage / ServerResponse pair, minus the same request whose close
 * listener does nothing.
 *
 *   node bench/run.js metrics
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import * as path from 'node:path';
import { build, report, ROOT, say } from './lib/harness';

const ROUTE = '/api/v1/client/:client/:environment/context/:context/type/:type/:key';
const CALLS = 100_000;
const TRIALS = 7;

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** CPU µs per simulated request (a response finishing and closing), best of TRIALS. */
function perRequest(middleware: Middleware): number {
  const socket = new Socket();
  const once = () => {
    const req = new IncomingMessage(socket);
    req.method = 'GET';
    const res = new ServerResponse(req);
    middleware(req, res, () => undefined);
    // What Express sets once a route matched: the metrics' route label.
    (req as IncomingMessage & { route?: { path: string } }).route = { path: ROUTE };
    res.statusCode = 200;
    res.emit('finish');
    res.emit('close');
  };
  for (let i = 0; i < 2000; i++) once(); // warm the JIT
  let best = Infinity;
  for (let t = 0; t < TRIALS; t++) {
    const start = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) once();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / CALLS);
  }
  return best;
}

function main(): void {
  build('docstore');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Metrics, routeLabel } = require(path.join(ROOT, 'dist/docstore/libs/observability/src/index.js'));
  const metrics = new Metrics('docstore');
  const listening =
    (observe: boolean): Middleware =>
    (req, res) => {
      const started = performance.now();
      res.on('close', () => observe && metrics.observeRequest(req.method ?? 'GET', routeLabel(req), res.statusCode, (performance.now() - started) / 1000));
    };
  const rounds = [1, 2, 3].map((round) => {
    const base = perRequest(listening(false));
    const withMetrics = perRequest(listening(true));
    say(`round ${round}: ${base.toFixed(2)} µs without, ${withMetrics.toFixed(2)} µs with metrics`);
    return withMetrics - base;
  });
  const median = [...rounds].sort((a, b) => a - b)[1];
  process.stdout.write(
    report('Request metrics', ['', 'round 1', 'round 2', 'round 3', 'median'], [['CPU µs per request', ...rounds.map((r) => r.toFixed(2)), median.toFixed(2)]]),
  );
  metrics.onModuleDestroy();
}

main();
