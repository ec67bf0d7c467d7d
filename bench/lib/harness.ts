/**
 * What every bench shares: settings, child processes and their IPC, the scratch database and
 * Redis prefix of a run, the services started as deployed, load generators and tables.
 */
import { isMainThread } from 'node:worker_threads';
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JobsOptions } from 'bullmq';
import Redis from 'ioredis';
import { Client, Pool as PgPool } from 'pg';
import { Pool } from 'undici';

export const ROOT = path.resolve(__dirname, '../..');
const REGISTER = path.join(ROOT, 'bench/register.js');
export const ADMIN_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
/**
 * The V8 heap bound k8s/base/config.yaml and docker/compose.yml give every service; the floors get it too. Passed on the
 * command line rather than in NODE_OPTIONS, which refuses flags such as --cpu-prof.
 */
const NODE_FLAGS = (process.env.BENCH_NODE_OPTIONS ?? '--max-old-space-size=256').split(/\s+/).filter(Boolean);
/** The engines' job options (libs/queue/src/queue-producer.ts), for the floors' jobs. */
export const ENGINE_JOB_OPTIONS: JobsOptions = {
  removeOnComplete: true,
  removeOnFail: { count: 1000 },
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
};

// ---------------------------------------------------------------------------------------
// Settings and output

export function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return value;
}

export function flag(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? fallback : !['0', 'false', 'no', 'off'].includes(raw.toLowerCase());
}

export const say = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
/** Wall-clock milliseconds, comparable across processes on one machine. */
export const wallMs = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const fmt = (digits: number) => (x: number | null | undefined) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits));
export const f0 = fmt(0);
export const f1 = fmt(1);
export const f2 = fmt(2);

/** A Markdown table, headed by the date and machine so a result can go into bench/README.md as it is. */
export function report(title: string, headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? '?'}, load ${os.loadavg()[0].toFixed(2)}, node ${process.version}`;
  return [
    `\n### ${title} (${new Date().toISOString().slice(0, 10)}, ${machine})\n`,
    line(headers),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    '',
  ].join('\n');
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];

// ---------------------------------------------------------------------------------------
// Child processes

export interface Child {
  name: string;
  process: ChildProcess;
  /** The last chunks of its stderr, for error messages. */
  stderr: string[];
}

const children = new Set<Child>();

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** `node <args>` in the repository root, or `node -r register <file>` for a bench's own TypeScript. */
export function spawnNode(name: string, args: string[], env: NodeJS.ProcessEnv = {}, stdout: number | 'ignore' = 'ignore'): Child {
  const argv = [...NODE_FLAGS, ...(args[0].endsWith('.ts') ? ['-r', REGISTER, ...args] : args)];
  const stdio: StdioOptions = ['ignore', stdout, 'pipe', 'ipc'];
  const proc = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', NODE_OPTIONS: '', ...env }, stdio });
  const child: Child = { name, process: proc, stderr: [] };
  children.add(child);
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (chunk: string) => {
    child.stderr.push(chunk);
    if (child.stderr.length > 50) child.stderr.shift();
  });
  proc.once('exit', () => children.delete(child));
  return child;
}

const exited = (child: Child) => child.process.exitCode !== null || child.process.signalCode !== null;

/** Polls `http://127.0.0.1:<port><probe>` until it answers below 500. */
export async function waitHttp(child: Child, port: number, probe: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`${child.name} exited during start-up (code ${child.process.exitCode}):\n${child.stderr.join('')}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${probe}`);
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${child.name} did not answer within 90 s:\n${child.stderr.join('')}`);
}

/** A started HTTP server: a built service (main.js, ready at /health) or a floor of bench/floors. */
export async function startServer(name: string, main: string, env: NodeJS.ProcessEnv, stdout: number | 'ignore' = 'ignore'): Promise<Child & { port: number }> {
  const port = await freePort();
  const child = spawnNode(name, [main], { PORT: String(port), ...env }, stdout);
  await waitHttp(child, port, main.endsWith('.ts') ? '/' : '/health');
  return Object.assign(child, { port });
}

/** SIGTERM, then SIGKILL after 10 s. */
export function stopChild(child: Child): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.process.kill('SIGKILL'), 10_000);
    child.process.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.process.kill('SIGTERM');
  });
}

/** Resolves with the first IPC message for which `test` holds. */
export function nextMessage<T>(child: Child, test: (msg: T) => boolean, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${child.name}: no answer within ${timeoutMs / 1000} s:\n${child.stderr.join('')}`)), timeoutMs);
    const onExit = () => done(new Error(`${child.name} exited (code ${child.process.exitCode}):\n${child.stderr.join('')}`));
    const onMessage = (msg: T) => test(msg) && done(null, msg);
    function done(error: Error | null, msg?: T) {
      clearTimeout(timer);
      child.process.off('message', onMessage);
      child.process.off('exit', onExit);
      if (error) reject(error);
      else resolve(msg!);
    }
    child.process.on('message', onMessage);
    child.process.once('exit', onExit);
  });
}

let rpcSeq = 0;

/** Sends `message` with a fresh id and resolves with the child's answer to it (`{rpc, error}` rejects). */
export async function rpc<T>(child: Child, message: Record<string, unknown>, timeoutMs = 60_000): Promise<T> {
  const id = ++rpcSeq;
  const answer = nextMessage<{ rpc?: number; error?: string }>(child, (msg) => msg?.rpc === id, timeoutMs);
  child.process.send({ ...message, rpc: id });
  const reply = await answer;
  if (reply.error) throw new Error(`${child.name}: ${reply.error}`);
  return reply as T;
}

/** The child side of `rpc`; also tells the parent it is ready, with `ready`'s fields. */
export function serveRpc(handler: (message: Record<string, unknown>) => unknown, ready: Record<string, unknown> = {}): void {
  process.on('message', (message: Record<string, unknown>) => {
    const id = message?.rpc;
    if (typeof id !== 'number') return;
    Promise.resolve()
      .then(() => handler(message))
      .then(
        (answer) => process.send!({ ...(answer as object), rpc: id }),
        (error: Error) => process.send!({ rpc: id, error: error?.stack ?? String(error) }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready: true, ...ready });
}

/** Starts one of the bench's own IPC children (a sink or a floor) and waits for its `ready`. */
export async function startIpcChild<T extends object>(name: string, file: string, env: NodeJS.ProcessEnv = {}): Promise<[Child, T]> {
  const child = spawnNode(name, [path.join(ROOT, 'bench', file)], env);
  return [child, await nextMessage<T & { ready?: boolean }>(child, (m) => m?.ready === true)];
}

export type Arrivals = { keys: string[]; times: number[]; sample: { headers: Record<string, string>; body: string } | null };

/** Waits until the sink (lib/sink.ts) holds `n` distinct keys, then takes them; fails on a duplicate or after `timeoutS`. */
export async function arrivals(sink: Child, n: number, what: string, timeoutS: number): Promise<Arrivals> {
  const deadline = Date.now() + timeoutS * 1000;
  for (let unique = 0; unique < n; await sleep(100)) {
    unique = (await rpc<{ unique: number }>(sink, { cmd: 'count' })).unique;
    if (Date.now() > deadline) throw new Error(`${what}: ${unique} of ${n} arrived within ${timeoutS} s`);
  }
  const taken = await rpc<Arrivals>(sink, { cmd: 'take' });
  if (taken.keys.length !== n) throw new Error(`${what}: ${taken.keys.length - n} arrived twice`);
  return taken;
}

// ---------------------------------------------------------------------------------------
// A run: build, scratch database, Redis prefix, clean-up

/** The built entry of an app (`npx nx build <app>` first, unless BENCH_BUILD=0). */
export function built(app: string, file = 'main'): string {
  return path.join(ROOT, `dist/${app}/apps/${app}/src/${file}.js`);
}

/** A credential minted as the image mints one (`main.js <command> …`); returns what it prints. */
export function mint(app: string, argv: string[], env: Record<string, string>): string {
  const result = spawnSync(process.execPath, [built(app), ...argv], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`minting with ${app} ${argv[0]} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** A service setting as this run gives it: the environment's, else the built config class's default. */
export function setting(file: string, configClass: string, key: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return process.env[key] || String(new (require(path.join(ROOT, 'dist', file))[configClass])()[key]);
}

export function build(app: string): void {
  if (flag('BENCH_BUILD', true)) {
    say(`building ${app} (BENCH_BUILD=0 skips)`);
    const run = spawnSync('npx', ['nx', 'build', app, '--output-style=static'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (run.status !== 0) throw new Error(`npx nx build ${app} failed`);
  }
  if (!fs.existsSync(built(app))) throw new Error(`${built(app)} is missing: build ${app} first`);
}

export interface Run {
  id: string;
  dbUrl: string;
  pg: PgPool;
  redisPrefix: string;
  tmp: string;
}

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Runs a bench: builds `app`, makes a scratch database `bench_<name>_<id>` and a Redis prefix,
 * hands them to `body`, and whatever happens (Ctrl-C too) stops every child and removes both.
 */
export function bench(name: string, app: string, body: (run: Run) => Promise<void>): void {
  if (!isMainThread) return; // a bench's own worker thread loaded its file
  const id = randomBytes(4).toString('hex');
  const dbName = `bench_${name}_${id}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const run: Run = { id, dbUrl: url.toString(), pg: new PgPool({ connectionString: url.toString(), max: 3 }), redisPrefix: `bench:${name}:${id}:`, tmp: '' };
  let cleaned: Promise<void> | undefined;
  const cleanup = () =>
    (cleaned ??= (async () => {
      await Promise.all([...children].map(stopChild));
      await run.pg.end().catch(() => undefined);
      if (run.tmp) fs.rmSync(run.tmp, { recursive: true, force: true });
      await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch((e: Error) => say(`could not drop ${dbName}: ${e.message}`));
      await clearRedis(run.redisPrefix).catch((e: Error) => say(`could not clear ${run.redisPrefix}*: ${e.message}`));
    })());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanup().finally(() => process.exit(130)));
  (async () => {
    build(app);
    run.tmp = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
    await admin(`CREATE DATABASE "${dbName}"`);
    say(`database ${dbName}, Redis prefix ${run.redisPrefix}`);
    await body(run);
  })()
    .catch((error: Error) => {
      say(`failed: ${error?.stack ?? String(error)}${error?.cause ? `\ncause: ${String(error.cause)}` : ''}`);
      process.exitCode = 1;
    })
    // A failed bench ends, even while a thread or socket it opened would keep the process alive.
    .finally(() => cleanup().then(() => process.exitCode && process.exit()));
}

async function clearRedis(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** Vacuums the dead rows of earlier runs and flushes dirty pages now, so neither lands in the next measured run. */
export async function settle(pg: PgPool, tables: string[]): Promise<void> {
  if (!flag('BENCH_SETTLE', true)) return;
  await pg.query(`VACUUM (ANALYZE) ${tables.join(', ')}`);
  await pg.query('CHECKPOINT');
}

/** A docstore token with every scope, stored as TokensRepository stores it (sha256 of the secret). */
export async function docstoreToken(pg: PgPool, clientId: string): Promise<string> {
  const id = randomUUID();
  const secret = randomBytes(30).toString('hex').slice(0, 40);
  await pg.query(`INSERT INTO docstore.tokens (id, client_id, name, secret_hash, scopes, status) VALUES ($1, $2, 'bench', $3, '["*"]', 'active')`, [
    id,
    clientId,
    createHash('sha256').update(secret).digest(),
  ]);
  return `${id}|${secret}`;
}

/** The document of the docstore and webhook benches: about 150 bytes of a product. */
export const productData = (i: number, stock = i % 50) => ({
  name: `Product ${i}`,
  price: i,
  sku: `SKU-${i}`,
  stock,
  active: i % 3 !== 0,
  tags: [`tag${i % 7}`, `tag${i % 11}`],
  dimensions: { w: i % 30, h: i % 40, unit: 'cm' },
});

/** Resident set of a process in MB (Linux), or null. */
export function rssMb(pid: number | undefined): number | null {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** CPU time every process of the machine has used since boot, in ms (/proc/stat: user, nice, system, irq, softirq). */
export function machineCpuMs(): number {
  const [user, nice, system, , , irq, softirq] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq) * 10;
}

/** CPU time (user + system, every thread) a process has used, in ms (Linux, 100 ticks a second), or NaN. */
export function cpuMs(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------------------------------
// Load

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  /** Answers with another status than expected, and transport errors. */
  failed: number;
}

export interface Request {
  path: string;
  method?: string;
  body?: string;
}

/**
 * Closed-loop load over `connections` keep-alive connections: each sends its next request as
 * soon as its answer is read, for `seconds` (cycling through `requests`) or once through them.
 * `onAnswer` sees each answer (index, start and end in wall-clock ms, status, body).
 */
export async function closedLoop(
  origin: string,
  opts: {
    connections: number;
    headers: Record<string, string>;
    requests: Request[];
    seconds?: number;
    status: number;
    onAnswer?: (i: number, start: number, end: number, body: string) => void;
  },
): Promise<Load & { first: number; last: number; firstError: string | null }> {
  const pool = new Pool(origin, { connections: opts.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const until = opts.seconds === undefined ? Infinity : performance.now() + opts.seconds * 1000;
  const total = opts.seconds === undefined ? opts.requests.length : Infinity;
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  let firstError: string | null = null;
  let first = Infinity;
  let last = 0;
  const lane = async () => {
    for (let i = next++; i < total && performance.now() < until; i = next++) {
      const req = opts.requests[i % opts.requests.length];
      const start = wallMs();
      try {
        const res = await pool.request({ path: req.path, method: req.method ?? 'GET', headers: opts.headers, body: req.body });
        const body = await res.body.text();
        if (res.statusCode !== opts.status) {
          failed++;
          firstError ??= `${res.statusCode} ${body.slice(0, 300)}`;
        }
        opts.onAnswer?.(i, start, wallMs(), body);
      } catch (error) {
        failed++;
        firstError ??= (error as Error).message;
      }
      const end = wallMs();
      latencies.push(end - start);
      first = Math.min(first, start);
      last = Math.max(last, end);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.connections, total) }, lane));
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return { rps: latencies.length / ((last - first) / 1000), p50: percentile(sorted, 50), p99: percentile(sorted, 99), failed, first, last, firstError };
}

/** autocannon for `seconds` at full speed, rotating through `requests`: the full-speed load of the docstore and gateway benches. */
export function cannon(url: string, connections: number, seconds: number, headers: Record<string, string>, requests: Request[]): Promise<Load> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const autocannon = require('autocannon');
  let i = 0;
  const setupRequest = (req: Record<string, unknown>) => Object.assign(req, requests[i++ % requests.length]);
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    let ok = 0;
    const instance = autocannon(
      { url, connections, duration: seconds, headers: { 'content-type': 'application/json', ...headers }, requests: [{ setupRequest }] },
      (err: Error | null, result: { duration: number; errors: number; timeouts: number }) => {
        if (err) return reject(err);
        const sorted = Float64Array.from(latencies).sort();
        resolve({
          rps: latencies.length / result.duration,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          failed: latencies.length - ok + result.errors + result.timeouts,
        });
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      latencies.push(ms);
      if (status >= 200 && status < 300) ok++;
    });
  });
}

/**
 * Open-loop load at a fixed rate: request i is sent at start + i / rate whether or not earlier
 * answers are back, so latency is that of one request at that rate, not of a queue.
 */
export async function paced(url: string, headers: Record<string, string>, body: string, rate: number, seconds: number): Promise<Load> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 64, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < Math.round(rate * seconds); i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    const sent = performance.now();
    inFlight.push(
      pool
        .request({ path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })
        .then(async (res) => {
          await res.body.text();
          if (res.statusCode >= 300) failed++;
          latencies.push(performance.now() - sent);
        })
        .catch(() => void failed++),
    );
  }
  await Promise.all(inFlight);
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return { rps: latencies.length / ((performance.now() - start) / 1000), p50: percentile(sorted, 50), p99: percentile(sorted, 99), failed };
}
