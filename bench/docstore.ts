/**
 * Docstore benchmark: the real docstore (every feature on) against two floors running the
 * same SQL — a bare NestJS 11 + Express app and a node:http + pg server — each in its own
 * child process, loaded by autocannon from this process over loopback. See bench/README.md.
 *
 *   node bench/run.js            (BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, ... below)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Pool } from 'pg';
import { summarizeProfile, type ProfileSummary } from './lib/cpuprofile';
import { clearRedis, cpuMs, DEPLOYED_NODE_OPTIONS, DIST_MAIN, dropDatabase, recreateDatabase, f0, f1, f2, flag, freePort, mintDocstoreToken, num, percentile, PROFILE_HOOK, REGISTER, ROOT, say, settleDatabase, table } from './lib/harness';
import { captureSql, type BenchSql } from './lib/sql';

/** Parsed JSON answers and autocannon results, read field by field in checks. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

const DIST_APP = path.dirname(DIST_MAIN);

const CFG = {
  databaseUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
  duration: num('BENCH_DURATION', 10),
  warmup: num('BENCH_WARMUP', 3),
  /** Seconds of load on each server, per scenario, before the first round (steady state: the docstore's round 1 ran up to 10 % slower after 3 s). */
  initialWarmup: num('BENCH_INITIAL_WARMUP', 15),
  connections: num('BENCH_CONNECTIONS', 64),
  rounds: Math.max(1, num('BENCH_ROUNDS', 1)),
  docs: Math.max(100, num('BENCH_DOCS', 1000)),
  bulkItems: num('BENCH_BULK_ITEMS', 1000),
  bulkRuns: num('BENCH_BULK_RUNS', 20),
  poolSize: num('DB_POOL_SIZE', 20),
  logLevel: process.env.BENCH_LOG_LEVEL || 'info',
  /** Where the docstore's pino output goes: a temp file (default), or e.g. /dev/null. */
  logFile: process.env.BENCH_LOG_FILE || '',
  build: flag('BENCH_BUILD', true),
  profile: flag('BENCH_PROFILE', true),
  profileDir: process.env.BENCH_PROFILE_DIR || '',
  json: process.env.BENCH_JSON || '',
  only: (process.env.BENCH_ONLY || 'get,list,put,bulk').split(',').map((s) => s.trim()),
  /**
   * Other builds of the docstore (main.js paths, comma-separated), each run beside the docstore on the same
   * database as `docstore@<its folder under dist/>`: a change against its predecessor, or ablations, in one run.
   */
  variants: (process.env.BENCH_VARIANTS || '').split(',').map((s) => s.trim()).filter(Boolean),
  raw: flag('BENCH_RAW', true),
  /** Vacuum the document tables and checkpoint before each measured run, so no run inherits another's maintenance (autovacuum, a checkpoint's flush). */
  settle: flag('BENCH_SETTLE', true),
  /** A fixed request rate (req/s) for the scenario runs instead of as fast as possible: compares CPU per request at equal load. */
  rate: num('BENCH_RATE', 0),
};

const ENVIRONMENT = 'production';
const CONTEXT = 'shop';
const GOALS = { getThroughputRatio: 0.85, getP99Ratio: 1.3, bulkMs: 250 };

// ---------------------------------------------------------------------------------------
// Servers

type Kind = 'docstore' | 'bare-nest' | 'raw';

interface Server {
  name: string;
  kind: Kind;
  port: number;
  child: ChildProcess;
  auth: Record<string, string>;
  stderr: string[];
  /** The collection (document type) this server's PUT and bulk scenarios write to. */
  slug: string;
}

const servers = new Set<Server>();


interface StartOptions {
  name: string;
  kind: Kind;
  env?: Record<string, string>;
  profile?: boolean;
  stdout?: number | 'ignore';
  auth?: Record<string, string>;
  /** The docstore build to run (default: this checkout's dist). */
  main?: string;
}

async function startServer(ctx: Context, opts: StartOptions): Promise<Server> {
  const port = await freePort();
  const entry =
    opts.kind === 'docstore'
      ? [opts.main ?? DIST_MAIN]
      : ['-r', REGISTER, path.join(__dirname, opts.kind === 'raw' ? 'raw/server.ts' : 'bare-nest/main.ts')];
  const args = [...(opts.profile ? ['-r', PROFILE_HOOK] : []), ...entry];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Every server runs with the V8 flags the deployments give the services (BENCH_NODE_OPTIONS to try others).
    NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? DEPLOYED_NODE_OPTIONS,
    NODE_ENV: 'production',
    PORT: String(port),
    DATABASE_URL: ctx.dbUrl,
    DB_POOL_SIZE: String(CFG.poolSize),
    REDIS_URL: CFG.redisUrl,
    REDIS_PREFIX: ctx.redisPrefix,
    LOG_LEVEL: CFG.logLevel,
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000000',
    // Webhook signing secrets are encrypted at rest; a key for this run only.
    ENCRYPTION_KEYS: process.env.ENCRYPTION_KEYS || `bench:${randomBytes(32).toString('base64')}`,
    BENCH_SQL: JSON.stringify(ctx.sql),
    ...opts.env,
  };
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', opts.stdout ?? 'ignore', 'pipe', ...(opts.profile ? (['ipc'] as const) : [])],
  });
  const server: Server = {
    name: opts.name,
    kind: opts.kind,
    port,
    child,
    auth: opts.auth ?? {},
    stderr: [],
    slug: opts.name.replace(/[^\w-]+/g, '-'),
  };
  servers.add(server);
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    server.stderr.push(chunk);
    if (server.stderr.length > 50) server.stderr.shift();
  });
  child.once('exit', () => servers.delete(server));
  await waitReady(server, opts.kind === 'docstore' ? '/health' : '/');
  return server;
}

async function waitReady(server: Server, probe: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`${server.name} exited during start-up (code ${server.child.exitCode}):\n${server.stderr.join('')}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}${probe}`);
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${server.name} did not become ready within 90 s:\n${server.stderr.join('')}`);
}

function stopServer(server: Server): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

// ---------------------------------------------------------------------------------------
// Data

interface Context {
  dbName: string;
  dbUrl: string;
  adminUrl: string;
  redisPrefix: string;
  tmp: string;
  sql: BenchSql;
  clientId: string;
  token: string;
  pool: Pool;
}

const docPath = (ctx: Context, type: string, key?: string) =>
  `/api/v1/client/${ctx.clientId}/${ENVIRONMENT}/context/${CONTEXT}/type/${type}${key === undefined ? '' : `/${key}`}`;

const keyOf = (i: number) => `sku-${String(i).padStart(5, '0')}`;

function productData(i: number, stock = i % 50): Record<string, unknown> {
  return {
    name: `Product ${i}`,
    price: i,
    sku: `SKU-${i}`,
    stock,
    active: i % 3 !== 0,
    tags: [`tag${i % 7}`, `tag${i % 11}`],
    dimensions: { w: i % 30, h: i % 40, unit: 'cm' },
  };
}

async function seedCollection(ctx: Context, type: string): Promise<void> {
  await ctx.pool.query(
    `WITH w AS (
       INSERT INTO docstore.documents (client_id, environment, context, type, key, data)
       SELECT $1, $2, $3, $4, 'sku-' || lpad(i::text, 5, '0'),
         jsonb_build_object('name', 'Product ' || i, 'price', i, 'sku', 'SKU-' || i, 'stock', i % 50, 'active', i % 3 <> 0,
           'tags', jsonb_build_array('tag' || (i % 7), 'tag' || (i % 11)),
           'dimensions', jsonb_build_object('w', i % 30, 'h', i % 40, 'unit', 'cm'))
       FROM generate_series(0, $5::int - 1) AS i
       RETURNING *
     )
     INSERT INTO docstore.document_history (document_id, client_id, environment, context, type, key, data, version, created_at)
     SELECT id, client_id, environment, context, type, key, data, version, updated_at FROM w`,
    [ctx.clientId, ENVIRONMENT, CONTEXT, type, CFG.docs],
  );
}

// ---------------------------------------------------------------------------------------
// Load

interface LoadResult {
  scenario: string;
  server: string;
  requests: number;
  seconds: number;
  rps: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  /** Server process CPU per request (all threads), µs. */
  cpuUsPerReq: number | null;
  /** Server main (JavaScript) thread CPU per request, µs: what caps a Node process's throughput. */
  mainUsPerReq: number | null;
  /** Server process CPU use over the run, in cores (1.0 = one core busy). */
  cpuCores: number | null;
}

interface Scenario {
  id: 'get' | 'list' | 'put';
  title: string;
  /** autocannon `requests` for this server. */
  requests(ctx: Context, server: Server): object[];
  check(ctx: Context, server: Server): Promise<void>;
}

function rotating(method: string, paths: string[], bodies?: string[]): object[] {
  let i = 0;
  return [
    {
      method,
      setupRequest: (req: Record<string, unknown>) => {
        const k = i++ % paths.length;
        req.path = paths[k];
        if (bodies) req.body = bodies[k];
        return req;
      },
    },
  ];
}

const LIST_QUERY = () => `?filter[price_gte]=${Math.floor(CFG.docs / 2)}&per_page=15`;

function putBodies(server: Server, round: number): string[] {
  return Array.from({ length: CFG.docs }, (_, i) =>
    JSON.stringify({ environment: ENVIRONMENT, context: CONTEXT, type: `put-${server.slug}`, key: keyOf(i), data: productData(i, (i + round + 1) % 50) }),
  );
}

async function expectOk(server: Server, pathname: string, init: RequestInit, test: (body: Json) => boolean, what: string): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${server.port}${pathname}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...server.auth, ...(init.headers as Record<string, string>) },
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep text
  }
  if (res.status !== 200 || !test(body)) {
    throw new Error(`${server.name}: ${what} check failed: ${res.status} ${text.slice(0, 300)}`);
  }
}

const SCENARIOS: Scenario[] = [
  {
    id: 'get',
    title: 'GET document by key',
    requests: (ctx) => rotating('GET', Array.from({ length: CFG.docs }, (_, i) => docPath(ctx, 'product', keyOf(i)))),
    check: (ctx, server) =>
      expectOk(server, docPath(ctx, 'product', keyOf(7)), {}, (b) => b.key === keyOf(7) && b.data.price === 7 && b.version >= 1, 'GET'),
  },
  {
    id: 'list',
    title: `GET list filter[price_gte] (~${CFG.docs} docs, per_page 15)`,
    requests: (ctx) => rotating('GET', [docPath(ctx, 'product') + LIST_QUERY()]),
    check: (ctx, server) =>
      expectOk(
        server,
        docPath(ctx, 'product') + LIST_QUERY(),
        {},
        (b) => b.data.length === 15 && b.total === CFG.docs - Math.floor(CFG.docs / 2) && b.data.every((d: Json) => d.data.price >= CFG.docs / 2),
        'list',
      ),
  },
  {
    id: 'put',
    title: 'PUT document (rotating keys)',
    requests: (ctx, server) =>
      rotating('PUT', Array.from({ length: CFG.docs }, (_, i) => docPath(ctx, `put-${server.slug}`, keyOf(i))), putBodies(server, 0)),
    check: (ctx, server) =>
      expectOk(
        server,
        docPath(ctx, `put-${server.slug}`, keyOf(3)),
        { method: 'PUT', body: putBodies(server, 1)[3] },
        (b) => b.key === keyOf(3) && b.version >= 2,
        'PUT',
      ),
  },
];

function cannon(server: Server, requests: object[], seconds: number, onStart?: () => void, rate?: number): Promise<{ latencies: Float64Array; codes: Map<number, number>; errors: number; seconds: number }> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const codes = new Map<number, number>();
    let started = 0;
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${server.port}`,
        connections: CFG.connections,
        duration: seconds,
        headers: { 'content-type': 'application/json', ...server.auth },
        requests,
        ...(rate ? { overallRate: rate } : {}),
      },
      (err: Error | null, result: Json) => {
        if (err) return reject(err);
        const elapsed = (performance.now() - started) / 1000;
        resolve({ latencies: Float64Array.from(latencies).sort(), codes, errors: result.errors + result.timeouts, seconds: elapsed });
      },
    );
    instance.on('start', () => {
      started = performance.now();
      onStart?.();
    });
    instance.on('response', (_client: unknown, status: number | string, _bytes: number, ms: number) => {
      latencies.push(ms);
      const code = Number(status);
      codes.set(code, (codes.get(code) ?? 0) + 1);
    });
  });
}

interface MeasureOptions {
  beforeMeasure?: () => Promise<void>;
  /** Fixed request rate (req/s over all connections) instead of as fast as possible. */
  rate?: number;
  seconds?: number;
  warmup?: number;
}

async function measure(ctx: Context, scenario: Scenario, server: Server, hooks: MeasureOptions = {}): Promise<LoadResult> {
  const requests = scenario.requests(ctx, server);
  const warmup = hooks.warmup ?? CFG.warmup;
  if (warmup > 0) await cannon(server, requests, warmup, undefined, hooks.rate);
  await hooks.beforeMeasure?.();
  let cpuBefore: number | null = null;
  let mainBefore: number | null = null;
  const run = await cannon(
    server,
    requests,
    hooks.seconds ?? CFG.duration,
    () => {
      cpuBefore = cpuMs(server.child.pid);
      mainBefore = cpuMs(server.child.pid, true);
    },
    hooks.rate,
  );
  const cpuAfter = cpuMs(server.child.pid);
  const mainAfter = cpuMs(server.child.pid, true);
  const n = run.latencies.length;
  const ok = [...run.codes].filter(([code]) => code >= 200 && code < 300).reduce((s, [, c]) => s + c, 0);
  let sum = 0;
  for (const l of run.latencies) sum += l;
  const cpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
  const mainCpu = mainBefore !== null && mainAfter !== null ? mainAfter - mainBefore : null;
  return {
    scenario: scenario.id,
    server: server.name,
    requests: n,
    seconds: run.seconds,
    rps: n / run.seconds,
    mean: sum / n,
    p50: percentile(run.latencies, 50),
    p99: percentile(run.latencies, 99),
    max: run.latencies[n - 1],
    non2xx: n - ok,
    errors: run.errors,
    cpuUsPerReq: cpu === null || n === 0 ? null : (cpu * 1000) / n,
    mainUsPerReq: mainCpu === null || n === 0 ? null : (mainCpu * 1000) / n,
    cpuCores: cpu === null ? null : cpu / 1000 / run.seconds,
  };
}

// ---------------------------------------------------------------------------------------
// Bulk

interface BulkResult {
  scenario: 'bulk-create' | 'bulk-upsert';
  server: string;
  items: number;
  runs: number;
  mean: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
}

function bulkBody(round: number): string {
  return JSON.stringify({
    documents: Array.from({ length: CFG.bulkItems }, (_, i) => ({ key: `item-${String(i).padStart(5, '0')}`, data: productData(i, (i + round) % 50) })),
  });
}

async function bulkOnce(ctx: Context, server: Server, type: string, body: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${server.port}${docPath(ctx, type, 'bulk')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server.auth },
    body,
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${server.name}: bulk ${type} answered ${res.status}: ${text.slice(0, 300)}`);
  const rows = JSON.parse(text);
  if (!Array.isArray(rows) || rows.length !== CFG.bulkItems) throw new Error(`${server.name}: bulk ${type} returned ${rows.length} rows`);
  return ms;
}

async function measureBulk(ctx: Context, server: Server): Promise<BulkResult[]> {
  const stats = (scenario: BulkResult['scenario'], samples: number[]): BulkResult => {
    const sorted = [...samples].sort((a, b) => a - b);
    return {
      scenario,
      server: server.name,
      items: CFG.bulkItems,
      runs: samples.length,
      mean: samples.reduce((s, x) => s + x, 0) / samples.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      min: sorted[0],
      max: sorted[sorted.length - 1],
    };
  };
  // Warm-up: two requests of each kind, not counted.
  const upsertType = `bulk-upd-${server.slug}`;
  for (let w = 0; w < 2; w++) {
    await bulkOnce(ctx, server, `bulk-warm-${server.slug}-${w}`, bulkBody(w));
    await bulkOnce(ctx, server, upsertType, bulkBody(w));
  }
  const create: number[] = [];
  const upsert: number[] = [];
  for (let r = 0; r < CFG.bulkRuns; r++) {
    // Bodies are built before the clock starts; create goes to a fresh collection each time.
    const fresh = bulkBody(r);
    create.push(await bulkOnce(ctx, server, `bulk-new-${server.slug}-${r}`, fresh));
    const again = bulkBody(r + 2);
    upsert.push(await bulkOnce(ctx, server, upsertType, again));
  }
  return [stats('bulk-create', create), stats('bulk-upsert', upsert)];
}

// ---------------------------------------------------------------------------------------
// Profiling

interface ProfiledRun {
  server: string;
  scenario: string;
  load: LoadResult;
  summary: ProfileSummary;
}

function ipc(server: Server, message: object, expect: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${server.name}: no "${expect}" from the profile hook`)), 60_000);
    const onMessage = (msg: { profile?: string; message?: string } | null) => {
      if (msg?.profile === expect) {
        clearTimeout(timer);
        server.child.off('message', onMessage);
        resolve();
      } else if (msg?.profile === 'error') {
        clearTimeout(timer);
        server.child.off('message', onMessage);
        reject(new Error(`${server.name}: profiler: ${msg.message}`));
      }
    };
    server.child.on('message', onMessage);
    server.child.send(message);
  });
}

type Frame = { functionName: string; url: string };
const pkg = (f: Frame, re: RegExp) => re.test(f.url);

/** Time spent under these frames (anything they call included). */
const INCLUSIVE = [
  { label: 'ValidationPipe.transform (class-transformer + class-validator)', test: (f: Frame) => f.url.includes('@nestjs/common/pipes/validation.pipe') && f.functionName === 'transform' },
  { label: 'AuthGuard.canActivate (credential, token cache, rate limit, scopes)', test: (f: Frame) => f.url.includes('/auth.guard.js') && f.functionName === 'canActivate' },
  { label: 'TokenVerifier.verify (token cache + sha256)', test: (f: Frame) => f.url.includes('token-verifier.service') && f.functionName === 'verify' },
  { label: 'RateLimiter.hit (JS side of the Redis call)', test: (f: Frame) => f.url.includes('rate-limiter.service') && f.functionName === 'hit' },
  { label: 'SchemasService.assertValid (schema lookup + Ajv)', test: (f: Frame) => f.url.includes('schemas.service') && f.functionName === 'assertValid' },
  { label: 'pg Client.query', test: (f: Frame) => f.url.includes('/node_modules/pg/lib/client.js') && f.functionName === 'query' },
  { label: 'express res.json (stringify + send + socket write)', test: (f: Frame) => f.url.includes('/node_modules/express/lib/response.js') && f.functionName === 'json' },
];

/** Self time of frames in these groups (what the code itself costs, not what it calls). */
const GROUPS = [
  { label: 'logging: pino, pino-http, nestjs-pino, redact, sonic-boom', test: (f: Frame) => pkg(f, /\/node_modules\/(pino[\w-]*|nestjs-pino|sonic-boom|@pinojs\/[\w-]+|fast-redact|on-exit-leak-free|thread-stream)\//) || f.url.includes('/logger.config.js') },
  { label: 'async hooks (AsyncLocalStorage, promise hooks)', test: (f: Frame) => /^node:(internal\/)?async_hooks$/.test(f.url) || f.functionName === 'executionAsyncResource' },
  { label: 'validation: class-validator, class-transformer, ValidationPipe', test: (f: Frame) => pkg(f, /\/node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\//) || f.url.includes('/pipes/validation.pipe') },
  { label: 'Redis client: ioredis + parser', test: (f: Frame) => pkg(f, /\/node_modules\/(ioredis|@ioredis\/[\w-]+|redis-parser|redis-errors|denque|standard-as-callback|cluster-key-slot)\//) },
  { label: 'pg, pg-protocol, pg-pool, pg-types', test: (f: Frame) => pkg(f, /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|postgres-[\w-]+|pgpass)\//) },
  { label: 'routing + body parsing: express, router, path-to-regexp, body-parser, ...', test: (f: Frame) => pkg(f, /\/node_modules\/(express|router|path-to-regexp|body-parser|raw-body|type-is|content-type|parseurl|finalhandler|on-finished|send|mime-types|mime-db|media-typer|qs|depd|encodeurl|escape-html|statuses|iconv-lite|vary|cookie|proxy-addr|forwarded|ipaddr\.js)\//) },
  { label: 'NestJS: @nestjs/core, common, platform-express, rxjs, reflect-metadata', test: (f: Frame) => pkg(f, /\/node_modules\/(@nestjs\/[\w-]+|rxjs|reflect-metadata|tslib)\//) },
  { label: 'app + libs code (dist/docstore)', test: (f: Frame) => f.url.includes('/dist/docstore/') && !f.url.includes('/node_modules/') },
  { label: 'Ajv (JSON Schema)', test: (f: Frame) => pkg(f, /\/node_modules\/(ajv|ajv-formats|fast-deep-equal|fast-uri|json-schema-traverse)\//) },
  { label: 'node core (http, net, streams, timers, ...)', test: (f: Frame) => f.url.startsWith('node:') && !/^node:(internal\/)?async_hooks$/.test(f.url) },
  { label: 'V8 builtins / native (JSON, RegExp, syscalls such as writev)', test: (f: Frame) => f.url === '' && !['(garbage collector)', '(program)', '(idle)', '(root)'].includes(f.functionName) },
  { label: 'garbage collector', test: (f: Frame) => f.functionName === '(garbage collector)' },
];

/** Profiles one load scenario (GET or PUT) on a fresh server. */
async function profileLoad(ctx: Context, id: 'get' | 'put', kind: Kind, name: string, auth: Record<string, string>, out: number | 'ignore'): Promise<ProfiledRun> {
  const server = await startServer(ctx, { name, kind, env: {}, profile: true, auth, stdout: out });
  try {
    const scenario = SCENARIOS.find((s) => s.id === id)!;
    await scenario.check(ctx, server);
    const file = path.join(CFG.profileDir || ctx.tmp, `${id}-${server.slug}.cpuprofile`);
    const load = await measure(ctx, scenario, server, { beforeMeasure: () => ipc(server, { profile: 'start', intervalUs: 500 }, 'started') });
    await ipc(server, { profile: 'stop', file }, 'stopped');
    return { server: name, scenario: id, load, summary: summarizeProfile(file, ROOT, INCLUSIVE, GROUPS) };
  } finally {
    await stopServer(server);
  }
}

/** Profiles the docstore's bulk create (fresh collection per request), sequential requests. */
async function profileBulk(ctx: Context, auth: Record<string, string>, out: number | 'ignore'): Promise<ProfiledRun> {
  const server = await startServer(ctx, { name: 'docstore', kind: 'docstore', profile: true, auth, stdout: out });
  server.slug = 'docstore-prof';
  try {
    for (let w = 0; w < 2; w++) await bulkOnce(ctx, server, `bulk-pwarm-${w}`, bulkBody(w));
    const file = path.join(CFG.profileDir || ctx.tmp, 'bulk-docstore.cpuprofile');
    const runs = Math.max(5, CFG.bulkRuns);
    const bodies = Array.from({ length: runs }, (_, r) => bulkBody(r));
    await ipc(server, { profile: 'start', intervalUs: 500 }, 'started');
    const cpu0 = cpuMs(server.child.pid);
    const main0 = cpuMs(server.child.pid, true);
    const t0 = performance.now();
    const times: number[] = [];
    for (let r = 0; r < runs; r++) times.push(await bulkOnce(ctx, server, `bulk-prof-${r}`, bodies[r]));
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = cpuMs(server.child.pid);
    const main1 = cpuMs(server.child.pid, true);
    await ipc(server, { profile: 'stop', file }, 'stopped');
    const sorted = [...times].sort((a, b) => a - b);
    const load: LoadResult = {
      scenario: 'bulk-create',
      server: 'docstore',
      requests: runs,
      seconds,
      rps: runs / seconds,
      mean: times.reduce((a, b) => a + b, 0) / runs,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[runs - 1],
      non2xx: 0,
      errors: 0,
      cpuUsPerReq: cpu0 !== null && cpu1 !== null ? ((cpu1 - cpu0) * 1000) / runs : null,
      mainUsPerReq: main0 !== null && main1 !== null ? ((main1 - main0) * 1000) / runs : null,
      cpuCores: cpu0 !== null && cpu1 !== null ? (cpu1 - cpu0) / 1000 / seconds : null,
    };
    return { server: 'docstore', scenario: `bulk-create ${CFG.bulkItems} items`, load, summary: summarizeProfile(file, ROOT, INCLUSIVE, GROUPS) };
  } finally {
    await stopServer(server);
  }
}

// ---------------------------------------------------------------------------------------
// Report

function median<T>(items: T[], by: (t: T) => number): T {
  const sorted = [...items].sort((a, b) => by(a) - by(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

function report(loads: LoadResult[][], bulks: BulkResult[], profiles: ProfiledRun[], logInfo: string): string {
  const out: string[] = [];
  const machine = `${os.cpus().length} CPU (${os.cpus()[0]?.model ?? '?'}), load avg ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}`;
  out.push(`## Docstore benchmark — ${new Date().toISOString()}`);
  out.push('');
  out.push(
    `${machine}. autocannon ${CFG.connections} connections, warm-up ${CFG.warmup} s, measured ${CFG.duration} s per run, ` +
      `${CFG.rounds} round(s) (median round shown), ${CFG.docs} docs per collection, pg pool ${CFG.poolSize}. ${logInfo}`,
  );
  out.push('');

  // One row per (scenario, server): the median round by req/s.
  const grouped = new Map<string, LoadResult[]>();
  for (const round of loads) for (const r of round) grouped.set(`${r.scenario}\u0000${r.server}`, [...(grouped.get(`${r.scenario}\u0000${r.server}`) ?? []), r]);
  const picked = [...grouped.values()].map((rs) => median(rs, (r) => r.rps));
  const find = (scenario: string, server: string) => picked.find((r) => r.scenario === scenario && r.server === server);

  if (picked.length > 0) {
    out.push('### Throughput and latency');
    out.push('');
    // With a fixed number of connections, mean latency is connections ÷ throughput (Little's law); p99 ÷ mean is the
    // tail's own shape, so two servers with the same shape differ in p99 only by their throughput.
    out.push(`\`p99 ÷ mean\` is the shape of the tail: at ${CFG.connections} connections the mean is ${CFG.connections} ÷ req/s, so servers with the same shape differ in p99 only as much as in throughput.`);
    out.push('');
    out.push(
      table(
        ['scenario', 'server', 'req/s', 'mean ms', 'p50 ms', 'p99 ms', 'p99 ÷ mean', 'max ms', 'non-2xx', 'JS thread µs/req', 'process CPU µs/req', 'process cores'],
        picked.map((r) => [r.scenario, r.server, f0(r.rps), f2(r.mean), f2(r.p50), f2(r.p99), f2(r.p99 / r.mean), f1(r.max), String(r.non2xx + r.errors), f0(r.mainUsPerReq), f0(r.cpuUsPerReq), f2(r.cpuCores)]),
      ),
    );
    out.push('');
    const ratioRows: string[][] = [];
    for (const scenario of SCENARIOS.map((s) => s.id)) {
      const ds = find(scenario, 'docstore');
      const bare = find(scenario, 'bare-nest');
      const raw = find(scenario, 'raw');
      if (!ds || !bare) continue;
      ratioRows.push([
        scenario,
        f2(ds.rps / bare.rps),
        f2(ds.p99 / bare.p99),
        ds.mainUsPerReq && bare.mainUsPerReq ? f2(ds.mainUsPerReq / bare.mainUsPerReq) : '-',
        raw ? f2(raw.rps / bare.rps) : '-',
        raw ? f2(raw.p99 / bare.p99) : '-',
      ]);
    }
    if (ratioRows.length > 0) {
      out.push('### Ratios');
      out.push('');
      out.push(table(['scenario', 'docstore/bare req/s', 'docstore/bare p99', 'docstore/bare JS-thread CPU per req', 'raw/bare req/s', 'raw/bare p99'], ratioRows));
      out.push('');
      // Each round's pair ran back to back, so its ratio shares the machine's state of the moment.
      for (const scenario of SCENARIOS.map((s) => s.id)) {
        const pairs = loads.flatMap((round) => {
          const ds = round.find((r) => r.scenario === scenario && r.server === 'docstore');
          const bare = round.find((r) => r.scenario === scenario && r.server === 'bare-nest');
          return ds && bare ? [{ rps: ds.rps / bare.rps, p99: ds.p99 / bare.p99 }] : [];
        });
        if (pairs.length < 2) continue;
        const rps = median(pairs, (p) => p.rps).rps;
        const p99 = median(pairs, (p) => p.p99).p99;
        out.push(`${scenario}, docstore ÷ bare per round: req/s ${pairs.map((p) => f2(p.rps)).join(', ')} (median ${f2(rps)}); p99 ${pairs.map((p) => f2(p.p99)).join(', ')} (median ${f2(p99)}).`);
        out.push('');
      }
    }
    const ds = find('get', 'docstore');
    const bare = find('get', 'bare-nest');
    if (ds && bare) {
      const tr = ds.rps / bare.rps;
      const pr = ds.p99 / bare.p99;
      out.push(
        `GET goal: throughput ≥ ${GOALS.getThroughputRatio}× bare → ${f2(tr)}× ${tr >= GOALS.getThroughputRatio ? 'MET' : 'MISSED'}; ` +
          `p99 ≤ ${GOALS.getP99Ratio}× bare → ${f2(pr)}× ${pr <= GOALS.getP99Ratio ? 'MET' : 'MISSED'}.`,
      );
      out.push('');
    }
  }

  if (bulks.length > 0) {
    out.push(`### Bulk (${CFG.bulkItems} items, ${CFG.bulkRuns} sequential requests each, after 2 warm-ups)`);
    out.push('');
    out.push(
      table(
        ['scenario', 'server', 'mean ms', 'p50 ms', 'p99 ms', 'min ms', 'max ms'],
        bulks.map((b) => [b.scenario, b.server, f1(b.mean), f1(b.p50), f1(b.p99), f1(b.min), f1(b.max)]),
      ),
    );
    out.push('');
    for (const b of bulks.filter((x) => x.server === 'docstore')) {
      out.push(`${b.scenario} goal: < ${GOALS.bulkMs} ms → mean ${f1(b.mean)} ms, p99 ${f1(b.p99)} ms ${b.p99 < GOALS.bulkMs ? 'MET' : b.mean < GOALS.bulkMs ? 'MET on mean, MISSED on p99' : 'MISSED'}.`);
    }
    out.push('');
  }

  for (const p of profiles) {
    // Sampled time includes stretches where the thread was runnable but descheduled (a busy
    // machine), so absolute times come from /proc: share of profiled busy time × the JS
    // thread's measured CPU per request.
    const cpuPerReq = p.load.mainUsPerReq ?? (p.summary.busyMs * 1000) / p.load.requests;
    const perReq = (share: number) => share * cpuPerReq;
    const unit = p.scenario.startsWith('bulk') ? 'request' : 'req';
    out.push(`### CPU profile: ${p.server}, ${p.scenario} (${p.load.requests} requests, ${f0(p.load.rps)} req/s while profiled, mean ${f1(p.load.mean)} ms)`);
    out.push('');
    out.push(
      `JS thread CPU ${f0(p.load.mainUsPerReq)} µs/${unit} (from /proc; whole process ${f0(p.load.cpuUsPerReq)} µs/${unit}). ` +
        `Profiler: thread busy ${f1((100 * p.summary.busyMs) / p.summary.wallMs)}% of the ${f1(p.summary.wallMs / 1000)} s window. ` +
        `µs/${unit} below = share of busy samples × JS thread µs/${unit}.`,
    );
    out.push('');
    out.push(table(['self time by group', `≈µs/${unit}`, '% busy'], p.summary.groups.filter((g) => g.ms > 0).sort((a, b) => b.ms - a.ms).map((g) => [g.label, f0(perReq(g.share)), f1(100 * g.share)])));
    out.push('');
    out.push(table(['inclusive (frame and everything it calls)', `≈µs/${unit}`, '% busy'], p.summary.inclusive.filter((i) => i.ms > 0).map((i) => [i.label, f0(perReq(i.share)), f1(100 * i.share)])));
    out.push('');
    out.push(table(['top self-time functions', 'where', `≈µs/${unit}`, '% busy'], p.summary.topSelf.map((t) => [t.name, t.where, f0(perReq(t.share)), f1(100 * t.share)])));
    out.push('');
  }
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------
// Main

let cleanupStarted = false;
let cleanupWork: (() => Promise<void>) | undefined;

async function cleanup(): Promise<void> {
  if (cleanupStarted) return;
  cleanupStarted = true;
  await Promise.all([...servers].map(stopServer));
  await cleanupWork?.();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    say(`${signal}: stopping servers and dropping the database`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  if (CFG.build) {
    say('building docstore (npx nx build docstore; BENCH_BUILD=0 skips)');
    const build = spawnSync('npx', ['nx', 'build', 'docstore', '--output-style=static'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (build.status !== 0) throw new Error('npx nx build docstore failed');
  }
  if (!fs.existsSync(DIST_MAIN)) throw new Error(`${DIST_MAIN} is missing: build the docstore first`);

  const run = randomBytes(4).toString('hex');
  const dbName = `bench_${run}`;
  const adminUrl = CFG.databaseUrl;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docstore-bench-'));
  const logFile = CFG.logFile || path.join(tmp, 'docstore.log');
  const redisPrefix = `bench:${run}:`;

  const dbUrl = await recreateDatabase(adminUrl, dbName);
  say(`database ${dbName} created; Redis prefix ${redisPrefix}; docstore log → ${logFile}`);

  const pool = new Pool({ connectionString: dbUrl, max: 2 });
  cleanupWork = async () => {
    await pool.end().catch(() => undefined);
    await dropDatabase(adminUrl, dbName).catch((e) => say(`could not drop ${dbName}: ${e.message}`));
    await clearRedis(CFG.redisUrl, redisPrefix).catch((e) => say(`could not clear Redis keys ${redisPrefix}*: ${e.message}`));
    // tmp holds the default log file and, without BENCH_PROFILE_DIR, the profiles.
    fs.rmSync(tmp, { recursive: true, force: true });
    say(`dropped ${dbName}, cleared ${redisPrefix}*`);
  };

  const sql = await captureSql(DIST_APP);
  const ctx: Context = { dbName, dbUrl, adminUrl, redisPrefix, tmp, sql, clientId: randomUUID(), token: '', pool };

  const logFd = fs.openSync(logFile, 'a');
  // The docstore migrates its schema on start; the token and data go in after that.
  say('starting docstore (LOG_LEVEL=' + CFG.logLevel + ')');
  const docstore = await startServer(ctx, { name: 'docstore', kind: 'docstore', stdout: logFd });
  ctx.token = await mintDocstoreToken(pool, ctx.clientId);
  const auth = { authorization: `Bearer ${ctx.token}` };
  docstore.auth = auth;
  const variants: Server[] = [];
  for (const variant of CFG.variants) {
    // `<main.js> [V8 flags] [SETTING=value]`: another build, or the same build under other flags or settings.
    const [main, ...words] = variant.split(/\s+/);
    const settings = words.filter((w) => /^[A-Z][A-Z0-9_]*=/.test(w));
    const flags = words.filter((w) => !settings.includes(w));
    const folder = path.relative(path.join(ROOT, 'dist'), path.resolve(main)).split(path.sep)[0];
    const name = `docstore@${folder}${words.length > 0 ? ` ${words.join(' ')}` : ''}`;
    const env = { ...(flags.length > 0 ? { NODE_OPTIONS: flags.join(' ') } : {}), ...Object.fromEntries(settings.map((s) => s.split(/=(.*)/s, 2))) };
    variants.push(await startServer(ctx, { name, kind: 'docstore', stdout: logFd, auth, main: path.resolve(main), env }));
  }
  say(`starting bare-nest${CFG.raw ? ' and raw' : ''}`);
  const bare = await startServer(ctx, { name: 'bare-nest', kind: 'bare-nest' });
  const raw = CFG.raw ? [await startServer(ctx, { name: 'raw', kind: 'raw' })] : [];
  const measured = [docstore, ...variants, bare, ...raw];

  say(`seeding ${CFG.docs} docs per collection`);
  await seedCollection(ctx, 'product');
  for (const s of measured) await seedCollection(ctx, `put-${s.slug}`);
  await pool.query('ANALYZE docstore.documents');
  await pool.query('ANALYZE docstore.document_history');

  const scenarios = SCENARIOS.filter((s) => CFG.only.includes(s.id));
  for (const scenario of scenarios) for (const s of measured) await scenario.check(ctx, s);

  for (const scenario of scenarios) {
    for (const server of measured) {
      say(`warm-up ${scenario.id} → ${server.name} (${CFG.initialWarmup} s)`);
      await cannon(server, scenario.requests(ctx, server), CFG.initialWarmup, undefined, CFG.rate || undefined);
    }
  }

  const loads: LoadResult[][] = [];
  for (let round = 0; round < CFG.rounds; round++) {
    const results: LoadResult[] = [];
    loads.push(results);
    for (const [si, scenario] of scenarios.entries()) {
      // Rotate the order so no server always runs first (or right after another's writes).
      const order = measured.map((_, i) => measured[(i + si + round) % measured.length]);
      for (const server of order) {
        say(`round ${round + 1}/${CFG.rounds} ${scenario.id} → ${server.name}`);
        if (CFG.settle) await settleDatabase(ctx.pool, ['docstore.documents', 'docstore.document_history']);
        const r = await measure(ctx, scenario, server, { rate: CFG.rate || undefined });
        say(`  ${f0(r.rps)} req/s, p50 ${f2(r.p50)} ms, p99 ${f2(r.p99)} ms, JS thread ${f0(r.mainUsPerReq)} µs/req, non-2xx ${r.non2xx + r.errors}`);
        results.push(r);
      }
    }
  }

  const bulks: BulkResult[] = [];
  if (CFG.only.includes('bulk') && CFG.bulkRuns > 0) {
    for (const server of measured) {
      say(`bulk ${CFG.bulkItems} items × ${CFG.bulkRuns} → ${server.name}`);
      const rs = await measureBulk(ctx, server);
      for (const b of rs) say(`  ${b.scenario}: mean ${f1(b.mean)} ms, p50 ${f1(b.p50)} ms, p99 ${f1(b.p99)} ms`);
      bulks.push(...rs);
    }
  }

  const logBytes = fs.fstatSync(logFd).size;
  const logLines = logFile === '/dev/null' ? 0 : fs.readFileSync(logFile, 'utf8').split('\n').length - 1;
  const logInfo =
    logFile === '/dev/null'
      ? `Docstore pino output (LOG_LEVEL=${CFG.logLevel}) went to /dev/null.`
      : `Docstore pino output (LOG_LEVEL=${CFG.logLevel}) went to a file: ${logLines} lines, ${(logBytes / 1e6).toFixed(1)} MB.`;

  // The measured servers are done; profile runs get the machine to themselves.
  await Promise.all(measured.map(stopServer));

  const profiles: ProfiledRun[] = [];
  if (CFG.profile && ['get', 'put', 'bulk'].some((id) => CFG.only.includes(id))) {
    if (CFG.profileDir) fs.mkdirSync(CFG.profileDir, { recursive: true });
    try {
      for (const id of (['get', 'put'] as const).filter((s) => CFG.only.includes(s))) {
        say(`profiling ${id.toUpperCase()} on a fresh docstore (logging on)`);
        profiles.push(await profileLoad(ctx, id, 'docstore', 'docstore', auth, logFd));
        say(`profiling ${id.toUpperCase()} on a fresh bare-nest`);
        profiles.push(await profileLoad(ctx, id, 'bare-nest', 'bare-nest', {}, 'ignore'));
      }
      if (CFG.only.includes('bulk') && CFG.bulkRuns > 0) {
        say('profiling bulk create on a fresh docstore');
        profiles.push(await profileBulk(ctx, auth, logFd));
      }
    } catch (error) {
      say(`profiling failed (results above still stand): ${(error as Error).message}`);
    }
  }
  fs.closeSync(logFd);

  const text = report(loads, bulks, profiles, logInfo);
  process.stdout.write(`\n${text}\n`);
  if (CFG.json) fs.writeFileSync(CFG.json, JSON.stringify({ config: CFG, loads, bulks, profiles, report: text }, null, 2));
  if (CFG.profileDir) say(`profiles kept in ${CFG.profileDir}`);
}

main()
  .catch((error) => {
    process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
