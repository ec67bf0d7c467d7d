/**
 * Micro-costs of the docstore's per-request machinery, measured in-process with CPU time
 * (min of several trials), so they hold up on a busy machine where the HTTP numbers drift.
 * Uses the built docstore (dist/), like bench/docstore.ts.
 *
 *   node bench/run.js micro
 */
import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import * as fs from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import * as path from 'node:path';
import { bulkBodyOk, documentBodyOk, documentPathOk } from './lib/fast-checks';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist/docstore');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = (rel: string) => require(path.join(DIST, rel));

/** µs per call of `fn`: CPU time over `n` calls, best of `trials`. */
async function cost(n: number, fn: (i: number) => unknown, trials = 5): Promise<number> {
  for (let i = 0; i < Math.min(n, 200); i++) await fn(i); // warm the JIT
  let best = Infinity;
  for (let t = 0; t < trials; t++) {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      const r = fn(i);
      if (r instanceof Promise) await r;
    }
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / n);
  }
  return best;
}

const rows: Array<[string, string]> = [];
const say = (label: string, us: number, unit = 'µs') => {
  const text = unit === 'ms' ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`;
  rows.push([label, text]);
  process.stderr.write(`[micro] ${label}: ${text}\n`);
};

async function validation(): Promise<void> {
  const { createValidationPipe } = load('libs/errors/src/validation.pipe.js');
  const { BulkBodyDto, DocumentBodyDto } = load('apps/docstore/src/documents/document.dto.js');
  const pipe = createValidationPipe();

  const params = { client: '5b7658fc-e7a6-4a7c-947a-6c9b46702557', environment: 'production', context: 'shop', type: 'product', key: 'sku-00042' };
  const exists = (rel: string) => fs.existsSync(path.join(DIST, rel));
  if (exists('apps/docstore/src/documents/document-path.dto.js')) {
    const { DocumentPathDto } = load('apps/docstore/src/documents/document-path.dto.js');
    const paramMeta = { type: 'param', metatype: DocumentPathDto, data: undefined };
    say('ValidationPipe on GET/PUT @Param() DocumentPathDto', await cost(20_000, () => pipe.transform({ ...params }, paramMeta)));
    say('proposed fast check for the same params', await cost(200_000, () => documentPathOk({ ...params })));
  }
  if (exists('apps/docstore/src/documents/document-path.pipe.js')) {
    const { DocumentPathPipe } = load('apps/docstore/src/documents/document-path.pipe.js');
    const pathPipe = new DocumentPathPipe();
    say('DocumentPathPipe on GET/PUT path params', await cost(200_000, () => pathPipe.transform({ ...params })));
  }

  const data = (i: number) => ({ name: `Product ${i}`, price: i, sku: `SKU-${i}`, stock: i % 50, active: true, tags: ['a', 'b'], dimensions: { w: 1, h: 2, unit: 'cm' } });
  const body = { environment: 'production', context: 'shop', type: 'product', key: 'sku-00042', data: data(42) };
  const bodyMeta = { type: 'body', metatype: DocumentBodyDto, data: undefined };
  say('ValidationPipe on PUT @Body() DocumentBodyDto', await cost(20_000, () => pipe.transform(structuredClone(body), bodyMeta)) - (await cost(20_000, () => structuredClone(body))));
  say('proposed fast check for the same body', await cost(200_000, () => documentBodyOk(body)));

  const bulkText = JSON.stringify({ documents: Array.from({ length: 1000 }, (_, i) => ({ key: `item-${i}`, data: data(i) })) });
  const bulkMeta = { type: 'body', metatype: BulkBodyDto, data: undefined };
  const parse = await cost(30, () => JSON.parse(bulkText));
  say('ValidationPipe on bulk @Body() BulkBodyDto, 1,000 items', (await cost(30, () => pipe.transform(JSON.parse(bulkText), bulkMeta))) - parse, 'ms');
  const parsed = JSON.parse(bulkText);
  say('proposed fast check for the same bulk body', await cost(200, () => bulkBodyOk(parsed)), 'ms');
}

async function logging(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pinoHttp = require('pino-http');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pino = require('pino');
  const config = load('libs/server/src/logger.config.js');
  const dest = pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 });
  const socket = new Socket();
  const request = () => {
    const req = new IncomingMessage(socket);
    req.method = 'GET';
    req.url = '/api/v1/client/5b7658fc-e7a6-4a7c-947a-6c9b46702557/production/context/shop/type/product/sku-00042';
    req.headers = { host: '127.0.0.1:3001', authorization: 'Bearer x|y', connection: 'keep-alive', 'user-agent': 'autocannon' };
    const res = new ServerResponse(req);
    return { req, res };
  };
  const noop = () => undefined;
  const baseline = await cost(50_000, () => {
    const { res } = request();
    res.statusCode = 200;
    res.emit('finish');
    res.emit('close');
  });
  const perRequest = async (label: string, middleware: (req: unknown, res: unknown, next: () => void) => void) => {
    say(
      label,
      (await cost(50_000, () => {
        const { req, res } = request();
        middleware(req, res, noop);
        // What Express sets once a route matched (the metrics label).
        (req as unknown as { route: { path: string } }).route = { path: '/api/v1/client/:client/:environment/context/:context/type/:type/:key' };
        res.statusCode = 200;
        res.emit('finish');
        res.emit('close');
      })) - baseline,
    );
  };
  const params = config.loggerParams.length === 3 ? config.loggerParams({ LOG_LEVEL: 'info' }, 'docstore', '0.1.0') : null;
  if (params && Array.isArray(params.pinoHttp)) {
    // The pino-http set-up (nestjs-pino's per-request middleware).
    const [opts] = params.pinoHttp;
    await perRequest('pino-http per request, as configured (LOG_LEVEL=info)', pinoHttp(opts, dest));
    await perRequest('  … with LOG_LEVEL=silent', pinoHttp({ ...opts, level: 'silent' }, dest));
    await perRequest('  … with wrapSerializers: false', pinoHttp({ ...opts, wrapSerializers: false }, dest));
  }
  if (typeof config.requestLog === 'function' && typeof config.createRootLogger === 'function') {
    // The one-line-per-request middleware.
    const root = config.createRootLogger({ LOG_LEVEL: 'info' }, 'docstore', '0.1.0');
    const logger = pino({ level: 'info', base: root.bindings() }, dest);
    await perRequest('requestLog middleware per request (LOG_LEVEL=info)', config.requestLog(logger));
  }
  const observability = 'libs/observability/src/index.js';
  if (fs.existsSync(path.join(DIST, observability))) {
    // The Prometheus request metrics: one histogram observation per request, by route and status.
    const { Metrics, httpMetrics } = load(observability);
    const metrics = new Metrics('docstore');
    await perRequest('httpMetrics middleware per request (/metrics histogram)', httpMetrics(metrics));
    metrics.onModuleDestroy();
  }
}

async function asyncLocalStorage(): Promise<void> {
  // A request in the docstore awaits through Nest's pipeline, the guard, the rate limiter,
  // pg and the response: dozens of promises. Cost per promise of an active AsyncLocalStorage:
  const chain = async (depth: number): Promise<number> => (depth === 0 ? 0 : 1 + (await chain(depth - 1)));
  const plain = await cost(2_000, () => chain(50));
  const als = new AsyncLocalStorage<object>();
  const withAls = await cost(2_000, () => als.run({ id: 1 }, () => chain(50)));
  say('AsyncLocalStorage: extra cost per 50 awaited async calls', withAls - plain);
}

async function main(): Promise<void> {
  await validation();
  await logging();
  await asyncLocalStorage(); // last: once enabled, the async hooks stay on in this process
  process.stdout.write(`\n| micro-cost | per call (CPU, best of 5) |\n|---|---|\n${rows.map(([a, b]) => `| ${a} | ${b} |`).join('\n')}\n`);
}

main().catch((error) => {
  process.stderr.write(`[micro] failed: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
