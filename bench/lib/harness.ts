/**
 * Small pieces every multi-process bench needs: settings from the environment, child
 * processes (start, wait until they answer, stop, ask over IPC), a scratch database and
 * a token in it, Redis clean-up by prefix, CPU time from /proc, percentiles and Markdown
 * tables. Used by bench/webhooks.ts (bench/docstore.ts predates it and keeps its own copies).
 */
import { execFileSync, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, type Pool } from 'pg';

export const ROOT = path.resolve(__dirname, '../..');
export const DIST_MAIN = path.join(ROOT, 'dist/docstore/apps/docstore/src/main.js');
export const REGISTER = path.join(ROOT, 'bench/register.js');
/** The V8 heap bound k8s/base/config.yaml and docker/compose.yml run the apps with (NODE_OPTIONS). */
export const DEPLOYED_NODE_OPTIONS = '--max-old-space-size=256';
export const PROFILE_HOOK = path.join(ROOT, 'bench/lib/profile-hook.js');

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

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
export const wallMs = () => performance.timeOrigin + performance.now();

const fmt = (digits: number) => (x: number | null | undefined) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits));
export const f0 = fmt(0);
export const f1 = fmt(1);
export const f2 = fmt(2);

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

// ---------------------------------------------------------------------------------------
// CPU time from /proc (Linux; null elsewhere)

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function statFields(file: string): string[] | null {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** CPU time (user + system) used so far, in ms, by a process, or by its main (JavaScript) thread alone. */
export function cpuMs(pid: number | undefined, mainThread = false): number | null {
  if (pid === undefined) return null;
  const fields = statFields(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`);
  return fields ? ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK : null;
}

/** CPU ms used so far by each live process whose command name is `comm` (e.g. every PostgreSQL backend), by pid. */
export function cpuMsByCommand(comm: string): Map<number, number> | null {
  let dirs: string[];
  try {
    dirs = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const out = new Map<number, number>();
  for (const pid of dirs) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== comm) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(pid), ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK);
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/**
 * CPU used by every process named `comm` since the tracker was created, including processes
 * that start later or exit before the end (e.g. PostgreSQL backends of a pool that closes
 * idle connections). Each `poll` remembers what each pid had used, so a process that exits
 * keeps what it used up to the last poll: poll often (every 100-250 ms) for that to be close.
 */
export class CommandCpu {
  private readonly base = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private polled = false;

  constructor(private readonly comm: string) {}

  /** CPU ms used since creation, or null without /proc. */
  poll(): number | null {
    const now = cpuMsByCommand(this.comm);
    if (!now) return null;
    for (const [pid, ms] of now) {
      // A pid first seen after the first poll started since: all its CPU counts.
      if (!this.base.has(pid)) this.base.set(pid, this.polled ? 0 : ms);
      this.last.set(pid, ms);
    }
    this.polled = true;
    let total = 0;
    for (const [pid, ms] of this.last) total += ms - this.base.get(pid)!;
    return total;
  }
}

/** Machine-wide CPU ms so far: busy (everything but idle and iowait) and total, summed over all cores. */
export function machineCpuMs(): { busy: number; total: number } | null {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = v[3] + (v[4] ?? 0);
    return { busy: ((total - idle) * 1000) / CLK_TCK, total: (total * 1000) / CLK_TCK };
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------
// Child processes

export interface Child {
  name: string;
  process: ChildProcess;
  /** The last lines of its stderr, for error messages. */
  stderr: string[];
}

const children = new Set<Child>();

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface SpawnOptions {
  name: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Where stdout goes: a file descriptor, 'ignore' (default) or 'inherit'. */
  stdout?: number | 'ignore' | 'inherit';
  ipc?: boolean;
}

/** Starts `node <args>` in the repository root; its stderr is kept (last 50 chunks) for error messages. */
export function spawnNode(opts: SpawnOptions): Child {
  const stdio: StdioOptions = ['ignore', opts.stdout ?? 'ignore', 'pipe', ...(opts.ipc ? (['ipc'] as const) : [])];
  const proc = spawn(process.execPath, opts.args, { cwd: ROOT, env: opts.env ?? process.env, stdio });
  const child: Child = { name: opts.name, process: proc, stderr: [] };
  children.add(child);
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (chunk: string) => {
    child.stderr.push(chunk);
    if (child.stderr.length > 50) child.stderr.shift();
  });
  proc.once('exit', () => children.delete(child));
  return child;
}

export const exited = (child: Child) => child.process.exitCode !== null || child.process.signalCode !== null;

/** Polls `http://127.0.0.1:<port><probe>` until it answers below 500. */
export async function waitHttpReady(child: Child, port: number, probe: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`${child.name} exited during start-up (code ${child.process.exitCode}):\n${child.stderr.join('')}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${probe}`);
      await res.arrayBuffer();
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${child.name} did not become ready within ${timeoutMs / 1000} s:\n${child.stderr.join('')}`);
}

/** SIGTERM, then SIGKILL after `graceMs`. */
export function stopChild(child: Child, graceMs = 10_000): Promise<void> {
  const proc = child.process;
  if (exited(child)) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

export const stopAllChildren = () => Promise.all([...children].map((c) => stopChild(c)));

let rpcSeq = 0;

/**
 * Sends `message` with a fresh `rpc` id over IPC and resolves with the child's reply that
 * carries the same id (`{ rpc, ...answer }`); `{ rpc, error }` rejects.
 */
export async function rpc<T = Record<string, unknown>>(child: Child, message: Record<string, unknown>, timeoutMs = 60_000): Promise<T> {
  const id = ++rpcSeq;
  const answer = nextMessage<{ rpc?: number; error?: string }>(child, (msg) => msg?.rpc === id, timeoutMs);
  child.process.send({ ...message, rpc: id });
  const reply = await answer.catch((error: Error) => {
    throw new Error(`${error.message}\n(while answering ${JSON.stringify(message)})`);
  });
  if (reply.error) throw new Error(`${child.name}: ${reply.error}`);
  return reply as T;
}

/** The child side of `rpc`: answers each message with `handler`'s result (or its error). */
export function serveRpc(handler: (message: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>): void {
  process.on('message', (message: Record<string, unknown>) => {
    const id = message?.rpc;
    if (typeof id !== 'number') return;
    Promise.resolve()
      .then(() => handler(message))
      .then(
        (answer) => process.send!({ ...answer, rpc: id }),
        (error: Error) => process.send!({ rpc: id, error: error?.stack ?? String(error) }),
      );
  });
}

/** Resolves with the first IPC message for which `test` holds. */
export function nextMessage<T>(child: Child, test: (msg: T) => boolean, timeoutMs = 60_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`${child.name}: expected message did not come within ${timeoutMs / 1000} s:\n${child.stderr.join('')}`)), timeoutMs);
    const onExit = () => done(new Error(`${child.name} exited (code ${child.process.exitCode}):\n${child.stderr.join('')}`));
    const onMessage = (msg: T) => {
      if (test(msg)) done(null, msg);
    };
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

// ---------------------------------------------------------------------------------------
// PostgreSQL and Redis

/**
 * Starts a measured run from the same database state as every other: the dead rows of the
 * runs before vacuumed and the dirty pages flushed now, not by autovacuum or a checkpoint in
 * the middle of whichever server happens to run next.
 */
export async function settleDatabase(pool: Pool, tables: string[]): Promise<void> {
  await pool.query(`VACUUM (ANALYZE) ${tables.join(', ')}`);
  await pool.query('CHECKPOINT');
}

/** Drops (if present) and creates database `name` next to `adminUrl`'s; returns its URL. */
export async function recreateDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

/**
 * A docstore token for `clientId`, inserted as TokensRepository.insert writes it
 * (secret_hash = sha256(secret)); scopes `["*"]` (every scope) by default.
 */
export async function mintDocstoreToken(pool: Pool, clientId: string = randomUUID(), scopes: string[] = ['*']): Promise<string> {
  const id = randomUUID();
  const secret = randomBytes(30).toString('base64url').replace(/[-_]/g, 'x').slice(0, 40);
  await pool.query(
    `INSERT INTO docstore.tokens (id, client_id, name, secret_hash, scopes, status) VALUES ($1, $2, 'bench', $3, $4, 'active')`,
    [id, clientId, createHash('sha256').update(secret, 'utf8').digest(), JSON.stringify(scopes)],
  );
  return `${id}|${secret}`;
}

/** Deletes every Redis key that starts with `prefix`; returns how many. */
export async function clearRedis(redisUrl: string, prefix: string): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Redis = require('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = (await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)) as [string, string[]];
      if (keys.length > 0) deleted += await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}
