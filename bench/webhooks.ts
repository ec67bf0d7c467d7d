/**
 * Webhook delivery benchmark: the built docstore (one child process) takes N document
 * creates with no webhook (phase A) and with one webhook subscribed to document.created
 * on a loopback receiver (phase B; also a backlog variant written with bulk requests),
 * against a bare BullMQ Queue + Worker POSTing the same payloads to the same receiver
 * (phase C, the floor). Phases FA and FB are the floor of the writes ratio: the bare NestJS
 * app of bench/bare-nest running the docstore's create SQL, without (FA) and with (FB) a bare
 * BullMQ job per write that its in-process worker POSTs to the receiver. The receiver and the
 * floors run in their own child processes; the writes come from this process. See
 * bench/README.md, "Webhooks".
 *
 *   node bench/run.js webhooks   (BENCH_WEBHOOK_WRITES, BENCH_CONNECTIONS, ... below)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Redis from 'ioredis';
import { Pool as PgPool } from 'pg';
import { Pool } from 'undici';
import { summarizeProfile, type ProfileSummary } from './lib/cpuprofile';
import { captureSql, type BenchSql } from './lib/sql';
import {
  clearRedis, CommandCpu, cpuMs, DIST_MAIN, dropDatabase, f0, f1, f2, flag, freePort, machineCpuMs, mintDocstoreToken, nextMessage, num,
  percentile, PROFILE_HOOK, recreateDatabase, REGISTER, ROOT, rpc, say, settleDatabase, spawnNode, stopAllChildren, stopChild, table, waitHttpReady, wallMs,
  type Child,
} from './lib/harness';
import type { DeliverJobData, DeliveryAttempt } from '@app/webhooks';

const CFG = {
  adminUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  dbName: process.env.BENCH_WEBHOOK_DB || 'bench_webhooks',
  redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
  writes: Math.max(1, num('BENCH_WEBHOOK_WRITES', 10_000)),
  warmup: num('BENCH_WEBHOOK_WARMUP', 1000),
  connections: Math.max(1, num('BENCH_CONNECTIONS', 64)),
  /** Phase B-bulk: the same number of events written by bulk requests, so the outbox fills faster than it drains. */
  bulk: flag('BENCH_WEBHOOK_BULK', true),
  bulkItems: Math.max(1, num('BENCH_BULK_ITEMS', 1000)),
  floorConcurrency: Math.max(1, num('BENCH_FLOOR_CONCURRENCY', 64)),
  floorWarmup: num('BENCH_FLOOR_WARMUP', 1000),
  /** Phases FA/FB: the writes ratio of a bare NestJS app delivering with a bare BullMQ worker. */
  writeFloor: flag('BENCH_WRITE_FLOOR', true),
  timeoutS: Math.max(10, num('BENCH_WEBHOOK_TIMEOUT', 300)),
  /** A phase whose receiver saw no new document for this long is declared stalled (reported, run exits 1). */
  stallS: Math.max(5, num('BENCH_WEBHOOK_STALL', 60)),
  poolSize: num('DB_POOL_SIZE', 20),
  logLevel: process.env.BENCH_LOG_LEVEL || 'info',
  logFile: process.env.BENCH_LOG_FILE || '',
  build: flag('BENCH_BUILD', true),
  /** VACUUM (ANALYZE) and CHECKPOINT before each measured phase (A, B, B-bulk, FA, FB), as the HTTP bench does. */
  settle: flag('BENCH_SETTLE', true),
  /** CPU-profile the docstore during phase B (and B-bulk); the profiler slows it, so headline runs leave this off. */
  profile: flag('BENCH_PROFILE', false),
  profileDir: process.env.BENCH_PROFILE_DIR || '',
  sampleMs: Math.max(50, num('BENCH_SAMPLE_MS', 250)),
  keepDb: flag('BENCH_KEEP_DB', false),
  json: process.env.BENCH_JSON || '',
};

/** The docstore's delivery settings as this run passes them (unset = the docstore's default). */
const DOCSTORE_WEBHOOK_ENV = ['WEBHOOK_CONCURRENCY', 'WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK', 'WEBHOOK_RELAY_INTERVAL_MS', 'WEBHOOK_CACHE_SECONDS'] as const;
const DOCSTORE_DEFAULTS: Record<(typeof DOCSTORE_WEBHOOK_ENV)[number], string> = {
  WEBHOOK_CONCURRENCY: '256',
  WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: '128',
  WEBHOOK_RELAY_INTERVAL_MS: '1000',
  WEBHOOK_CACHE_SECONDS: '5',
};


const GOALS = { deliveriesVsFloor: 0.4, p99Ms: 1000, writesVsNoWebhook: 0.8 };
const ENVIRONMENT = 'production';
const CONTEXT = 'shop';
const TYPE = 'product';
const EVENT = 'document.created';

const keyOf = (i: number) => `sku-${String(i).padStart(5, '0')}`;
const docPath = (clientId: string, key: string) => `/api/v1/client/${clientId}/${ENVIRONMENT}/context/${CONTEXT}/type/${TYPE}/${key}`;

function productData(i: number): Record<string, unknown> {
  return {
    name: `Product ${i}`,
    price: i,
    sku: `SKU-${i}`,
    stock: i % 50,
    active: i % 3 !== 0,
    tags: [`tag${i % 7}`, `tag${i % 11}`],
    dimensions: { w: i % 30, h: i % 40, unit: 'cm' },
  };
}

// ---------------------------------------------------------------------------------------
// CPU accounting: who used the two cores during a phase

interface CpuSnapshot {
  at: number;
  docstore: number | null;
  docstoreMain: number | null;
  receiver: number | null;
  loadgen: number;
  postgres: number | null;
  redis: number | null;
  machine: { busy: number; total: number } | null;
}

interface CpuUse {
  seconds: number;
  /** CPU ms over the window per process (group). */
  docstore: number | null;
  docstoreMain: number | null;
  receiver: number | null;
  loadgen: number;
  postgres: number | null;
  redis: number | null;
  /** Machine busy time over the window in cores (2.0 = both cores busy all the time). */
  machineCores: number | null;
}

/** All PostgreSQL backends and Redis, polled in the background so backends that exit mid-phase still count. */
const PG_CPU = new CommandCpu('postgres');
const REDIS_CPU = new CommandCpu('redis-server');
setInterval(() => {
  PG_CPU.poll();
  REDIS_CPU.poll();
}, 200).unref();

interface Procs {
  docstore?: Child;
  receiver: Child;
}

function snapshot(procs: Procs): CpuSnapshot {
  const self = process.cpuUsage();
  return {
    at: performance.now(),
    docstore: cpuMs(procs.docstore?.process.pid),
    docstoreMain: cpuMs(procs.docstore?.process.pid, true),
    receiver: cpuMs(procs.receiver.process.pid),
    loadgen: (self.user + self.system) / 1000,
    postgres: PG_CPU.poll(),
    redis: REDIS_CPU.poll(),
    machine: machineCpuMs(),
  };
}

function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): CpuUse {
  const d = (x: number | null, y: number | null) => (x === null || y === null ? null : y - x);
  const seconds = (b.at - a.at) / 1000;
  return {
    seconds,
    docstore: d(a.docstore, b.docstore),
    docstoreMain: d(a.docstoreMain, b.docstoreMain),
    receiver: d(a.receiver, b.receiver),
    loadgen: b.loadgen - a.loadgen,
    postgres: d(a.postgres, b.postgres),
    redis: d(a.redis, b.redis),
    machineCores: a.machine && b.machine ? (b.machine.busy - a.machine.busy) / 1000 / seconds : null,
  };
}

// ---------------------------------------------------------------------------------------
// Writes

interface WriteRun {
  requests: number;
  /** Wall-clock ms of the first request sent and the last response read. */
  firstStart: number;
  lastDone: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  firstError: string | null;
  /** For each document key, when its write's response was read (wall-clock ms). */
  doneAt: Map<string, number>;
}

function summarizeWrites(starts: Float64Array, dones: Float64Array, keysOf: (i: number) => string[], errors: number, firstError: string | null): WriteRun {
  const n = starts.length;
  const latencies = new Float64Array(n);
  let firstStart = Infinity;
  let lastDone = 0;
  const doneAt = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    latencies[i] = dones[i] - starts[i];
    firstStart = Math.min(firstStart, starts[i]);
    lastDone = Math.max(lastDone, dones[i]);
    for (const key of keysOf(i)) doneAt.set(key, dones[i]);
  }
  latencies.sort();
  const seconds = (lastDone - firstStart) / 1000;
  return {
    requests: n,
    firstStart,
    lastDone,
    seconds,
    rps: n / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[n - 1],
    errors,
    firstError,
    doneAt,
  };
}

/** `requests[i]` goes out on one of CFG.connections keep-alive connections, as soon as one is free. */
async function load(
  port: number,
  token: string,
  requests: Array<{ path: string; body: string }>,
  expectStatus: number,
  keysOf: (i: number) => string[],
): Promise<WriteRun> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CFG.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const starts = new Float64Array(requests.length);
  const dones = new Float64Array(requests.length);
  let next = 0;
  let errors = 0;
  let firstError: string | null = null;
  const lane = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      starts[i] = wallMs();
      try {
        const res = await pool.request({ path: requests[i].path, method: 'POST', headers, body: requests[i].body });
        const text = await res.body.text();
        if (res.statusCode !== expectStatus) {
          errors++;
          firstError ??= `${res.statusCode} ${text.slice(0, 300)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= (error as Error).message;
      }
      dones[i] = wallMs();
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(CFG.connections, requests.length) }, lane));
  } finally {
    await pool.close();
  }
  return summarizeWrites(starts, dones, keysOf, errors, firstError);
}

const createRequests = (clientId: string, n: number) =>
  Array.from({ length: n }, (_, i) => ({
    path: docPath(clientId, keyOf(i)),
    body: JSON.stringify({ environment: ENVIRONMENT, context: CONTEXT, type: TYPE, key: keyOf(i), data: productData(i) }),
  }));

function writeCreates(port: number, token: string, clientId: string, n: number): Promise<WriteRun> {
  return load(port, token, createRequests(clientId, n), 201, (i) => [keyOf(i)]);
}

/** The same n documents as writeCreates, CFG.bulkItems per bulk request (all new keys: document.created each). */
function writeBulk(port: number, token: string, clientId: string, n: number): Promise<WriteRun> {
  const chunks: number[][] = [];
  for (let i = 0; i < n; i += CFG.bulkItems) chunks.push(Array.from({ length: Math.min(CFG.bulkItems, n - i) }, (_, j) => i + j));
  const requests = chunks.map((idx) => ({
    path: docPath(clientId, 'bulk'),
    body: JSON.stringify({ documents: idx.map((i) => ({ key: keyOf(i), data: productData(i) })) }),
  }));
  // All bulk requests at once (one per connection, at most CFG.connections), so the outbox fills faster than it drains.
  return load(port, token, requests, 200, (r) => chunks[r].map(keyOf));
}

// ---------------------------------------------------------------------------------------
// Deliveries

interface Arrivals {
  keys: Array<string | null>;
  times: number[];
  bytes: number;
  bad: number;
  sample: { headers: Record<string, string | string[]>; body: string } | null;
}

interface DeliveryStats {
  /** Documents the receiver got (first arrival per key), of `expected`. */
  delivered: number;
  expected: number;
  complete: boolean;
  received: number;
  duplicates: number;
  unparsable: number;
  meanBodyBytes: number;
  firstArrival: number;
  lastArrival: number;
  /** delivered / (last arrival − first write sent). */
  endToEndRate: number;
  /** delivered / (last arrival − first arrival). */
  windowRate: number;
  /** How long after the last write's response the last document arrived. */
  tailAfterWritesMs: number;
  /** Arrival − write response, per document; an undelivered document counts as infinitely late. */
  latency: { p50: number; p90: number; p99: number; max: number; min: number };
}

interface WaitResult {
  complete: boolean;
  unique: number;
  requests: number;
  /** Why waiting stopped early. */
  reason: string | null;
}

/** Waits until the receiver has `n` distinct documents, CFG.timeoutS passed, or nothing new came for CFG.stallS. */
async function waitForDeliveries(receiver: Child, n: number, what: string, onProgress?: () => void): Promise<WaitResult> {
  const started = Date.now();
  let last = -1;
  let lastChange = Date.now();
  let lastSay = Date.now();
  for (;;) {
    const { unique, count } = await rpc<{ unique: number; count: number }>(receiver, { cmd: 'count' });
    if (unique !== last) {
      last = unique;
      lastChange = Date.now();
      onProgress?.();
    }
    if (unique >= n) return { complete: true, unique, requests: count, reason: null };
    const idle = (Date.now() - lastChange) / 1000;
    if (idle >= CFG.stallS) return { complete: false, unique, requests: count, reason: `stalled: nothing new for ${CFG.stallS} s (BENCH_WEBHOOK_STALL)` };
    if (Date.now() - started > CFG.timeoutS * 1000) return { complete: false, unique, requests: count, reason: `timed out after ${CFG.timeoutS} s (BENCH_WEBHOOK_TIMEOUT)` };
    if (Date.now() - lastSay >= 10_000) {
      lastSay = Date.now();
      say(`  ${what}: ${unique}/${n} delivered${idle >= 5 ? `, nothing new for ${Math.round(idle)} s` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function deliveryStats(arrivals: Arrivals, writes: WriteRun, n: number): DeliveryStats {
  const first = new Map<string, number>();
  let duplicates = 0;
  arrivals.keys.forEach((key, i) => {
    if (key === null) return;
    const t = arrivals.times[i];
    const seen = first.get(key);
    if (seen === undefined) first.set(key, t);
    else {
      duplicates++;
      if (t < seen) first.set(key, t);
    }
  });
  const latencies = new Float64Array(writes.doneAt.size);
  let delivered = 0;
  let firstArrival = Infinity;
  let lastArrival = 0;
  let i = 0;
  for (const [key, done] of writes.doneAt) {
    const at = first.get(key);
    if (at === undefined) {
      latencies[i++] = Infinity;
      continue;
    }
    delivered++;
    latencies[i++] = at - done;
    firstArrival = Math.min(firstArrival, at);
    lastArrival = Math.max(lastArrival, at);
  }
  if (writes.doneAt.size !== n) throw new Error(`expected ${n} written keys, have ${writes.doneAt.size}`);
  if (first.size > delivered) throw new Error(`the receiver got ${first.size - delivered} documents that were not written in this phase`);
  latencies.sort();
  return {
    delivered,
    expected: n,
    complete: delivered === n,
    received: arrivals.keys.length,
    duplicates,
    unparsable: arrivals.bad,
    meanBodyBytes: arrivals.bytes / Math.max(1, arrivals.keys.length),
    firstArrival,
    lastArrival,
    endToEndRate: delivered / ((lastArrival - writes.firstStart) / 1000),
    windowRate: delivered / ((lastArrival - firstArrival) / 1000),
    tailAfterWritesMs: lastArrival - writes.lastDone,
    latency: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99), max: latencies[n - 1], min: latencies[0] },
  };
}

/** Queue and outbox depth over time, sampled while a phase runs. */
interface Samples {
  /** [ms since start, Redis wait, active, delayed, outbox due (not yet queued), outbox queued] */
  rows: Array<[number, number, number, number, number | null, number | null]>;
  max: { wait: number; active: number; delayed: number; due: number; queued: number };
  /** Share of samples with at least one delayed job (per-webhook in-flight limit at work). */
  delayedShare: number;
}

/** Returns `stop(until)`: samples taken after `until` (a performance.now() time, e.g. the last delivery seen) are left out. */
function startSampler(redis: Redis, redisPrefix: string, pg: PgPool, webhookId: string): (until?: number) => Samples {
  const q = `${redisPrefix}bull:webhook-delivery`;
  const rows: Samples['rows'] = [];
  const t0 = performance.now();
  let stopped = false;
  let pgBusy = false;
  let outbox: { due: number; queued: number } | null = null;
  const tick = async () => {
    if (stopped) return;
    if (!pgBusy) {
      pgBusy = true;
      pg.query(
        `SELECT count(*) FILTER (WHERE queued_at IS NULL AND status IN ('pending', 'retrying'))::int AS due,
                count(*) FILTER (WHERE queued_at IS NOT NULL)::int AS queued
         FROM docstore.webhook_deliveries WHERE webhook_id = $1`,
        [webhookId],
      )
        .then((r) => (outbox = r.rows[0]))
        .catch(() => undefined)
        .finally(() => (pgBusy = false));
    }
    try {
      const res = await redis.multi().llen(`${q}:wait`).llen(`${q}:active`).zcard(`${q}:delayed`).exec();
      const [wait, active, delayed] = (res ?? []).map(([, v]) => Number(v));
      rows.push([Math.round(performance.now() - t0), wait, active, delayed, outbox?.due ?? null, outbox?.queued ?? null]);
    } catch {
      // a sample lost
    }
  };
  // unref: a phase that throws never stops it, and it must not keep the process alive.
  const timer = setInterval(() => void tick(), CFG.sampleMs).unref();
  return (until = Infinity) => {
    stopped = true;
    clearInterval(timer);
    while (rows.length > 0 && t0 + rows[rows.length - 1][0] > until) rows.pop();
    const max = (i: number) => rows.reduce((m, r) => Math.max(m, (r[i] as number | null) ?? 0), 0);
    return {
      rows,
      max: { wait: max(1), active: max(2), delayed: max(3), due: max(4), queued: max(5) },
      delayedShare: rows.length ? rows.filter((r) => r[3] > 0).length / rows.length : 0,
    };
  };
}

async function outboxStatus(pg: PgPool, webhookId: string): Promise<Array<{ status: string; count: number; max_attempts: number; queued: number; mean_ms: number | null }>> {
  const { rows } = await pg.query(
    `SELECT status, count(*)::int AS count, max(attempts)::int AS max_attempts, count(queued_at)::int AS queued,
            avg(duration_ms)::float8 AS mean_ms
     FROM docstore.webhook_deliveries WHERE webhook_id = $1 GROUP BY status ORDER BY status`,
    [webhookId],
  );
  return rows;
}

/** Waits (up to 10 s) until the webhook's recorded outcomes stop changing, then returns them. */
async function settledOutbox(pg: PgPool, webhookId: string, n: number) {
  const deadline = Date.now() + 10_000;
  const succeeded = (rows: Awaited<ReturnType<typeof outboxStatus>>) => rows.find((r) => r.status === 'succeeded')?.count ?? 0;
  let status = await outboxStatus(pg, webhookId);
  for (let before = -1; Date.now() < deadline && succeeded(status) < n && succeeded(status) !== before; ) {
    before = succeeded(status);
    await new Promise((r) => setTimeout(r, 1000));
    status = await outboxStatus(pg, webhookId);
  }
  return status;
}

/**
 * Deliveries still marked as handed to the queue (queued_at set, no attempt recorded) once
 * the phase is over, and how many of them the receiver did get: those were delivered but
 * their attempt was never recorded, so the outbox counts them against the webhook's
 * queue budget (WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK) until WEBHOOK_REQUEUE_AFTER_SECONDS. A regression check:
 * the engine records every attempt, so this must stay 0.
 */
async function stuckQueued(pg: PgPool, webhookId: string, delivered: Set<string>): Promise<{ queued: number; deliveredButUnrecorded: number }> {
  const { rows } = await pg.query<{ key: string }>(
    `SELECT data->>'key' AS key FROM docstore.webhook_deliveries WHERE webhook_id = $1 AND queued_at IS NOT NULL AND attempts = 0`,
    [webhookId],
  );
  return { queued: rows.length, deliveredButUnrecorded: rows.filter((r) => delivered.has(r.key)).length };
}

// ---------------------------------------------------------------------------------------
// Phases

/** Every table the phases write, settled before each measured phase so none starts with another's dead rows or dirty pages. */
const WRITTEN_TABLES = ['docstore.documents', 'docstore.document_history', 'docstore.webhook_deliveries', 'docstore.webhook_attempts'];
const settle = (ctx: Ctx) => (CFG.settle ? settleDatabase(ctx.pg, WRITTEN_TABLES) : Promise.resolve());

interface Ctx {
  run: string;
  dbUrl: string;
  redisPrefix: string;
  floorPrefix: string;
  tmp: string;
  pg: PgPool;
  redis: Redis;
  docstore: Child;
  docPort: number;
  receiver: Child;
  receiverUrl: string;
}

interface PhaseA {
  writes: WriteRun;
  cpu: CpuUse;
}

interface PhaseB {
  label: string;
  webhookId: string;
  writes: WriteRun;
  deliveries: DeliveryStats;
  /** CPU while the writes ran, and from the first write to the last arrival. */
  cpuWrites: CpuUse;
  cpuTotal: CpuUse;
  outbox: Awaited<ReturnType<typeof outboxStatus>>;
  stuck: { queued: number; deliveredButUnrecorded: number };
  wait: WaitResult;
  samples: Samples;
  signatureOk: boolean | null;
  profile?: ProfileSummary;
  sample: Arrivals['sample'];
}

interface PhaseC {
  jobs: number;
  enqueueMs: number;
  rate: number;
  /** N / (worker's own last completion − worker start). */
  workerRate: number;
  seconds: number;
  failed: number;
  duplicates: number;
  meanBodyBytes: number;
  floorCpuMs: number;
  receiverCpuMs: number | null;
  warmupRate: number | null;
}

const take = (ctx: Ctx) => rpc<Arrivals>(ctx.receiver, { cmd: 'take' });

async function freshClient(ctx: Ctx): Promise<{ clientId: string; token: string }> {
  const clientId = randomUUID();
  return { clientId, token: await mintDocstoreToken(ctx.pg, clientId) };
}

async function registerWebhook(ctx: Ctx, clientId: string, token: string): Promise<{ id: string; secret: string }> {
  const res = await fetch(`http://127.0.0.1:${ctx.docPort}/api/v1/client/${clientId}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ url: ctx.receiverUrl, events: [EVENT] }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`registering the webhook answered ${res.status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text);
  if (typeof body.id !== 'string' || typeof body.secret !== 'string') throw new Error(`webhook answer lacks id or secret: ${text.slice(0, 500)}`);
  return { id: body.id, secret: body.secret };
}

function assertWrites(what: string, run: WriteRun): void {
  if (run.errors > 0) throw new Error(`${what}: ${run.errors} requests failed; first: ${run.firstError}`);
}

async function warmUp(ctx: Ctx): Promise<void> {
  if (CFG.warmup <= 0) return;
  say(`warm-up: ${CFG.warmup} creates with a webhook (not counted)`);
  const { clientId, token } = await freshClient(ctx);
  const hook = await registerWebhook(ctx, clientId, token);
  const run = await writeCreates(ctx.docPort, token, clientId, CFG.warmup);
  assertWrites('warm-up', run);
  const wait = await waitForDeliveries(ctx.receiver, CFG.warmup, 'warm-up');
  await settledOutbox(ctx.pg, hook.id, CFG.warmup);
  const arrivals = await take(ctx);
  const stuck = await stuckQueued(ctx.pg, hook.id, new Set(arrivals.keys.filter((k): k is string => k !== null)));
  say(`  warm-up: ${wait.unique}/${CFG.warmup} delivered${wait.reason ? ` (${wait.reason})` : ''}; ${stuck.deliveredButUnrecorded} delivered but not recorded`);
}

async function phaseA(ctx: Ctx, procs: Procs): Promise<PhaseA> {
  say(`phase A: ${CFG.writes} creates, no webhook, ${CFG.connections} connections`);
  const { clientId, token } = await freshClient(ctx);
  await settle(ctx);
  const s0 = snapshot(procs);
  const writes = await writeCreates(ctx.docPort, token, clientId, CFG.writes);
  const cpu = cpuBetween(s0, snapshot(procs));
  assertWrites('phase A', writes);
  say(`  ${f0(writes.rps)} writes/s, p50 ${f1(writes.p50)} ms, p99 ${f1(writes.p99)} ms`);
  const stray = await take(ctx);
  if (stray.keys.length > 0) throw new Error(`phase A: the receiver got ${stray.keys.length} requests although no webhook was subscribed`);
  return { writes, cpu };
}

async function phaseB(ctx: Ctx, procs: Procs, mode: 'single' | 'bulk'): Promise<PhaseB> {
  const label = mode === 'single' ? 'B' : 'B-bulk';
  say(
    mode === 'single'
      ? `phase B: ${CFG.writes} creates, one webhook on the receiver, ${CFG.connections} connections`
      : `phase B-bulk: ${CFG.writes} documents in bulk requests of ${CFG.bulkItems}, one webhook on the receiver`,
  );
  const { clientId, token } = await freshClient(ctx);
  const hook = await registerWebhook(ctx, clientId, token);
  const stopSampler = startSampler(ctx.redis, ctx.redisPrefix, ctx.pg, hook.id);
  const profileFile = CFG.profile ? path.join(CFG.profileDir || ctx.tmp, `docstore-${label}-${ctx.run}.cpuprofile`) : '';
  await settle(ctx);
  if (profileFile) await profileCtl(ctx.docstore, { profile: 'start', intervalUs: 500 }, 'started');
  const s0 = snapshot(procs);
  const writes = mode === 'single' ? await writeCreates(ctx.docPort, token, clientId, CFG.writes) : await writeBulk(ctx.docPort, token, clientId, CFG.writes);
  const s1 = snapshot(procs);
  assertWrites(`phase ${label}`, writes);
  say(`  writes: ${f0(mode === 'single' ? writes.rps : CFG.writes / writes.seconds)} documents/s, done in ${f2(writes.seconds)} s`);
  // The CPU window ends at the last poll that saw a new delivery (not after a stall's idle wait).
  let s2 = snapshot(procs);
  const wait = await waitForDeliveries(ctx.receiver, CFG.writes, `phase ${label}`, () => (s2 = snapshot(procs)));
  if (profileFile) await profileCtl(ctx.docstore, { profile: 'stop', file: profileFile }, 'stopped');
  const samples = stopSampler(s2.at);
  const outbox = await settledOutbox(ctx.pg, hook.id, wait.unique);
  const arrivals = await take(ctx);
  const deliveries = deliveryStats(arrivals, writes, CFG.writes);
  const stuck = await stuckQueued(ctx.pg, hook.id, new Set(arrivals.keys.filter((k): k is string => k !== null)));
  if (!wait.complete) {
    say(`  PHASE ${label} INCOMPLETE: ${wait.unique} of ${CFG.writes} documents delivered (${wait.reason}); outbox: ${JSON.stringify(outbox)}`);
  }
  say(
    `  deliveries: ${f0(deliveries.endToEndRate)}/s (first write → last arrival), ${f0(deliveries.windowRate)}/s (first → last arrival); ` +
      `write→delivery p50 ${ms(deliveries.latency.p50)}, p99 ${ms(deliveries.latency.p99)}, max ${ms(deliveries.latency.max)}; ` +
      `${stuck.deliveredButUnrecorded} delivered but not recorded, ${stuck.queued} left marked queued`,
  );
  return {
    label,
    webhookId: hook.id,
    writes,
    deliveries,
    cpuWrites: cpuBetween(s0, s1),
    cpuTotal: cpuBetween(s0, s2),
    outbox,
    stuck,
    wait,
    samples,
    signatureOk: verifySample(arrivals.sample, hook.secret),
    profile: profileFile ? summarizeProfile(profileFile, ROOT, INCLUSIVE, GROUPS, 30) : undefined,
    sample: arrivals.sample,
  };
}

/** Checks the first delivery's Standard Webhooks signature with the engine's own verifier (from dist/). */
function verifySample(sample: Arrivals['sample'], secret: string): boolean | null {
  if (!sample) return null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { verifyWebhook } = require(path.join(ROOT, 'dist/docstore/libs/webhooks/src/webhook-signature.js'));
    verifyWebhook(secret, sample.headers, sample.body);
    return true;
  } catch (error) {
    say(`  signature check failed: ${(error as Error).message}`);
    return false;
  }
}

/**
 * Jobs like the docstore's (libs/webhooks/src/webhook-lane.ts): one webhook,
 * DELIVERIES_PER_JOB attempts to a job, bodies shaped like phase B's. One JSON job per line.
 */
function floorJobs(template: string, n: number): string {
  const parsed = JSON.parse(template);
  const webhookId = randomUUID();
  const attempts: DeliveryAttempt[] = [];
  for (let i = 0; i < n; i++) {
    const eventId = randomUUID();
    const body = JSON.stringify({
      id: eventId,
      type: parsed.type,
      created_at: new Date().toISOString(),
      client_id: parsed.client_id,
      data: { ...parsed.data, id: randomUUID(), key: keyOf(i), data: productData(i) },
    });
    attempts.push({ id: randomUUID(), attempt: 1, scheduleAttempt: 1, eventId, body });
  }
  // The built docstore's own constant (read after the bench has built it).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { DELIVERIES_PER_JOB } = require(path.join(ROOT, 'dist/docstore/libs/webhooks/src/webhook-queue.js')) as { DELIVERIES_PER_JOB: number };
  const jobs: DeliverJobData[] = [];
  for (let i = 0; i < attempts.length; i += DELIVERIES_PER_JOB) jobs.push({ key: webhookId, items: attempts.slice(i, i + DELIVERIES_PER_JOB) });
  return jobs.map((job) => JSON.stringify(job)).join('\n') + '\n';
}

async function phaseC(ctx: Ctx, template: string): Promise<PhaseC> {
  say(`phase C: bare BullMQ worker (concurrency ${CFG.floorConcurrency}) → receiver, ${CFG.writes} jobs`);
  const floor = spawnNode({
    name: 'bullmq-floor',
    args: ['-r', REGISTER, path.join(__dirname, 'webhooks/bullmq-floor.ts')],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      REDIS_URL: CFG.redisUrl,
      FLOOR_PREFIX: ctx.floorPrefix,
      FLOOR_TARGET: ctx.receiverUrl,
      FLOOR_CONCURRENCY: String(CFG.floorConcurrency),
    },
    ipc: true,
  });
  try {
    await nextMessage<{ ready?: boolean }>(floor, (m) => m?.ready === true);
    await take(ctx);
    let warmupRate: number | null = null;
    if (CFG.floorWarmup > 0) {
      const file = path.join(ctx.tmp, 'floor-warmup.jsonl');
      fs.writeFileSync(file, floorJobs(template, CFG.floorWarmup));
      const r = await rpc<{ t0: number; t1: number }>(floor, { cmd: 'run', file, queue: 'bench-floor-warmup' }, CFG.timeoutS * 1000);
      const w = await waitForDeliveries(ctx.receiver, CFG.floorWarmup, 'floor warm-up');
      if (!w.complete) throw new Error(`floor warm-up: ${w.unique}/${CFG.floorWarmup} delivered (${w.reason})`);
      const a = await take(ctx);
      warmupRate = CFG.floorWarmup / ((Math.max(...a.times) - r.t0) / 1000);
    }
    const file = path.join(ctx.tmp, 'floor.jsonl');
    fs.writeFileSync(file, floorJobs(template, CFG.writes));
    const receiverCpu0 = cpuMs(ctx.receiver.process.pid);
    const r = await rpc<{ t0: number; t1: number; enqueueMs: number; completed: number; failed: number; cpuMs: number; firstError: string | null }>(
      floor,
      { cmd: 'run', file, queue: 'bench-floor' },
      CFG.timeoutS * 1000,
    );
    const w = await waitForDeliveries(ctx.receiver, CFG.writes, 'phase C');
    if (!w.complete) throw new Error(`phase C: ${w.unique}/${CFG.writes} delivered (${w.reason}); floor: ${JSON.stringify(r)}`);
    const receiverCpu1 = cpuMs(ctx.receiver.process.pid);
    const arrivals = await take(ctx);
    const last = Math.max(...arrivals.times);
    const keys = new Set(arrivals.keys);
    const seconds = (last - r.t0) / 1000;
    const result: PhaseC = {
      jobs: r.completed + r.failed,
      enqueueMs: r.enqueueMs,
      rate: CFG.writes / seconds,
      workerRate: CFG.writes / ((r.t1 - r.t0) / 1000),
      seconds,
      failed: r.failed,
      duplicates: arrivals.keys.length - keys.size,
      meanBodyBytes: arrivals.bytes / arrivals.keys.length,
      floorCpuMs: r.cpuMs,
      receiverCpuMs: receiverCpu0 !== null && receiverCpu1 !== null ? receiverCpu1 - receiverCpu0 : null,
      warmupRate,
    };
    say(`  ${f0(result.rate)} deliveries/s (enqueue of ${CFG.writes} took ${f0(r.enqueueMs)} ms, not counted)`);
    return result;
  } finally {
    await stopChild(floor);
  }
}

/** One phase on the bare NestJS floor: its writes, their CPU, and (FB) the deliveries and the CPU up to the last arrival. */
interface FloorPhase extends PhaseA {
  deliveries: DeliveryStats | null;
  cpuTotal: CpuUse;
}

/** Phases FA and FB: creates on the bare NestJS floor, without and then with its bare delivery. */
interface WriteFloor {
  a: FloorPhase;
  b: FloorPhase & { deliveries: DeliveryStats };
}

async function startBareNest(ctx: Ctx, sql: BenchSql, deliver: boolean): Promise<{ child: Child; port: number }> {
  const port = await freePort();
  const child = spawnNode({
    name: deliver ? 'bare-nest (delivering)' : 'bare-nest',
    args: ['-r', REGISTER, path.join(__dirname, 'bare-nest/main.ts')],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      DATABASE_URL: ctx.dbUrl,
      DB_POOL_SIZE: String(CFG.poolSize),
      BENCH_SQL: JSON.stringify(sql),
      ...(deliver
        ? { REDIS_URL: CFG.redisUrl, FLOOR_PREFIX: `${ctx.floorPrefix}:writes`, FLOOR_DELIVER_TO: ctx.receiverUrl, FLOOR_CONCURRENCY: String(CFG.floorConcurrency) }
        : {}),
    },
  });
  // Any answer below 500 means it routes (the floor has no health route).
  await waitHttpReady(child, port, '/');
  return { child, port };
}

async function writeFloorPhase(ctx: Ctx, sql: BenchSql, deliver: boolean): Promise<FloorPhase> {
  const label = deliver ? 'FB' : 'FA';
  const { child, port } = await startBareNest(ctx, sql, deliver);
  const procs: Procs = { docstore: child, receiver: ctx.receiver };
  try {
    if (CFG.warmup > 0) {
      const warm = await writeCreates(port, '', randomUUID(), CFG.warmup);
      assertWrites(`phase ${label} warm-up`, warm);
      if (deliver) await waitForDeliveries(ctx.receiver, CFG.warmup, `${label} warm-up`);
      await take(ctx);
    }
    say(`phase ${label}: ${CFG.writes} creates on the bare NestJS floor, ${deliver ? 'each delivered by a bare BullMQ job' : 'no delivery'}`);
    await settle(ctx);
    const s0 = snapshot(procs);
    const writes = await writeCreates(port, '', randomUUID(), CFG.writes);
    const cpu = cpuBetween(s0, snapshot(procs));
    assertWrites(`phase ${label}`, writes);
    say(`  ${f0(writes.rps)} writes/s, p50 ${f1(writes.p50)} ms, p99 ${f1(writes.p99)} ms`);
    if (!deliver) return { writes, cpu, deliveries: null, cpuTotal: cpu };
    let s2 = snapshot(procs);
    const wait = await waitForDeliveries(ctx.receiver, CFG.writes, `phase ${label}`, () => (s2 = snapshot(procs)));
    const deliveries = deliveryStats(await take(ctx), writes, CFG.writes);
    if (!wait.complete) throw new Error(`phase ${label}: ${wait.unique}/${CFG.writes} delivered (${wait.reason})`);
    say(`  deliveries: ${f0(deliveries.endToEndRate)}/s; write→delivery p99 ${ms(deliveries.latency.p99)}`);
    return { writes, cpu, deliveries, cpuTotal: cpuBetween(s0, s2) };
  } finally {
    await stopChild(child);
  }
}

async function writeFloor(ctx: Ctx): Promise<WriteFloor> {
  const sql = await captureSql(path.dirname(DIST_MAIN));
  const a = await writeFloorPhase(ctx, sql, false);
  const b = await writeFloorPhase(ctx, sql, true);
  if (!b.deliveries) throw new Error('phase FB kept no deliveries');
  return { a, b: { ...b, deliveries: b.deliveries } };
}

// ---------------------------------------------------------------------------------------
// Profiling

function profileCtl(child: Child, message: object, expect: string): Promise<unknown> {
  const reply = nextMessage<{ profile?: string; message?: string }>(child, (m) => m?.profile === expect || m?.profile === 'error');
  child.process.send(message);
  return reply.then((m) => {
    if (m.profile === 'error') throw new Error(`profiler: ${m.message}`);
    return m;
  });
}

type Frame = { functionName: string; url: string };
const pkg = (f: Frame, re: RegExp) => re.test(f.url);

const INCLUSIVE = [
  { label: 'WebhookDeliveryProcessor.process (one attempt, all of it)', test: (f: Frame) => f.url.includes('webhook-delivery.processor') && f.functionName === 'process' },
  { label: 'WebhookSender.send (undici request)', test: (f: Frame) => f.url.includes('webhook-sender') && f.functionName === 'send' },
  { label: 'signedHeaders (HMAC)', test: (f: Frame) => f.url.includes('webhook-signature') && f.functionName === 'signedHeaders' },
  { label: 'OutboxRelay.run (relay transaction + addBulk)', test: (f: Frame) => f.url.includes('queue/src/outbox-relay') && f.functionName === 'run' },
  { label: 'QueueProducer.add (BullMQ addBulk)', test: (f: Frame) => f.url.includes('queue-producer') && f.functionName === 'add' },
  { label: 'AttemptRecorder.flush (grouped UPDATE + attempt log INSERT)', test: (f: Frame) => f.url.includes('webhook-attempt.recorder') && f.functionName === 'flush' },
  { label: 'DocumentsService.create (write path)', test: (f: Frame) => f.url.includes('documents.service') && f.functionName === 'create' },
  { label: 'bullmq Worker (all frames under bullmq)', test: (f: Frame) => pkg(f, /\/node_modules\/bullmq\//) },
  { label: 'pg Client.query', test: (f: Frame) => f.url.includes('/node_modules/pg/lib/client.js') && f.functionName === 'query' },
];

const GROUPS = [
  { label: 'bullmq', test: (f: Frame) => pkg(f, /\/node_modules\/bullmq\//) },
  { label: 'Redis client: ioredis + parser', test: (f: Frame) => pkg(f, /\/node_modules\/(ioredis|@ioredis\/[\w-]+|redis-parser|redis-errors|denque|standard-as-callback|cluster-key-slot)\//) },
  { label: 'undici', test: (f: Frame) => pkg(f, /\/node_modules\/undici\//) },
  { label: 'pg, pg-protocol, pg-pool, pg-types', test: (f: Frame) => pkg(f, /\/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pg-connection-string|postgres-[\w-]+|pgpass)\//) },
  { label: 'logging: pino, sonic-boom, ...', test: (f: Frame) => pkg(f, /\/node_modules\/(pino[\w-]*|nestjs-pino|sonic-boom|@pinojs\/[\w-]+|fast-redact|on-exit-leak-free|thread-stream)\//) },
  { label: 'routing + body parsing: express, router, body-parser, ...', test: (f: Frame) => pkg(f, /\/node_modules\/(express|router|path-to-regexp|body-parser|raw-body|type-is|content-type|parseurl|finalhandler|on-finished|send|mime-types|mime-db|media-typer|qs|depd|encodeurl|escape-html|statuses|iconv-lite|vary|cookie|proxy-addr|forwarded|ipaddr\.js)\//) },
  { label: 'NestJS, rxjs, reflect-metadata', test: (f: Frame) => pkg(f, /\/node_modules\/(@nestjs\/[\w-]+|rxjs|reflect-metadata|tslib)\//) },
  { label: 'validation: class-validator, class-transformer, Ajv', test: (f: Frame) => pkg(f, /\/node_modules\/(class-validator|class-transformer|validator|libphonenumber-js|ajv|ajv-formats|fast-uri)\//) },
  { label: 'app + libs code (dist/docstore)', test: (f: Frame) => f.url.includes('/dist/docstore/') && !f.url.includes('/node_modules/') },
  { label: 'node core (http, net, streams, timers, crypto, ...)', test: (f: Frame) => f.url.startsWith('node:') },
  { label: 'V8 builtins / native (JSON, syscalls, ...)', test: (f: Frame) => f.url === '' && !['(garbage collector)', '(program)', '(idle)', '(root)'].includes(f.functionName) },
  { label: 'garbage collector', test: (f: Frame) => f.functionName === '(garbage collector)' },
];

// ---------------------------------------------------------------------------------------
// Report

/** Floor FB's CPU per delivery beyond FA's per write, for one column. */
function floorExtra(wf: WriteFloor, pick: (u: CpuUse) => number | null): number | null {
  const x = pick(wf.a.cpu);
  const y = pick(wf.b.cpuTotal);
  return x === null || y === null ? null : ((y - (x * wf.b.writes.requests) / wf.a.writes.requests) * 1000) / wf.b.deliveries.delivered;
}

/** Machine CPU (µs, both cores) per write of `with`, beyond `without`'s per write (or all of it, without `without`). */
function machineExtra(without: CpuUse | null, withDelivery: CpuUse, n: number): number | null {
  const busy = (u: CpuUse) => (u.machineCores === null ? null : u.machineCores * u.seconds * 1e6);
  const y = busy(withDelivery);
  if (y === null) return null;
  if (!without) return y / n;
  const x = busy(without);
  return x === null ? null : (y - (x * n) / CFG.writes) / n;
}

const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
/** A latency, where Infinity stands for documents that were never delivered. */
const ms = (x: number) => (x === Infinity ? '∞ (undelivered)' : `${f1(x)} ms`);
const perOp = (ms: number | null, n: number) => (ms === null ? null : (ms * 1000) / n);
const cores = (ms: number | null, seconds: number) => (ms === null ? '-' : f2(ms / 1000 / seconds));

function report(a: PhaseA, bs: PhaseB[], c: PhaseC, wf: WriteFloor | null, info: string): { text: string; goals: Record<string, number | boolean> } {
  const b = bs[0];
  const out: string[] = [];
  const settings = DOCSTORE_WEBHOOK_ENV.map((k) => `${k}=${process.env[k] || `${DOCSTORE_DEFAULTS[k]} (default)`}`).join(', ');
  out.push(`## Webhook delivery benchmark — ${new Date().toISOString()}`);
  out.push('');
  out.push(
    `${os.cpus().length} CPU (${os.cpus()[0]?.model ?? '?'}), load avg ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, node ${process.version}. ` +
      `${CFG.writes} creates per phase at ${CFG.connections} connections (keep-alive, undici Pool), after ${CFG.warmup} warm-up creates with a webhook. ` +
      `Docstore: DB_POOL_SIZE=${CFG.poolSize}, LOG_LEVEL=${CFG.logLevel}, ${settings}. Floor: BullMQ concurrency ${CFG.floorConcurrency}. ${info}`,
  );
  out.push('');
  const rows: string[][] = [
    ['A: no webhook', f0(a.writes.rps), `${f1(a.writes.p50)} / ${f1(a.writes.p99)}`, '-', '-', '-'],
    ...bs.map((p) => [
      p.label === 'B' ? 'B: one webhook' : `B-bulk: ${Math.ceil(CFG.writes / CFG.bulkItems)} bulk request(s) of ${CFG.bulkItems}`,
      p.label === 'B' ? f0(p.writes.rps) : `${f0(CFG.writes / p.writes.seconds)} docs/s`,
      `${f1(p.writes.p50)} / ${f1(p.writes.p99)}`,
      `${f0(p.deliveries.endToEndRate)} / ${f0(p.deliveries.windowRate)}${p.deliveries.complete ? '' : ` (INCOMPLETE: ${p.deliveries.delivered} of ${p.deliveries.expected})`}`,
      `${ms(p.deliveries.latency.p50)} / ${ms(p.deliveries.latency.p99)} / ${ms(p.deliveries.latency.max)}`,
      p.deliveries.complete ? f0(p.deliveries.tailAfterWritesMs) : `never (${p.wait.reason})`,
    ]),
    ['C: bare BullMQ floor', '-', '-', `${f0(c.rate)} / -`, '-', '-'],
    ...(wf
      ? [
          ['FA: bare NestJS floor, no delivery', f0(wf.a.writes.rps), `${f1(wf.a.writes.p50)} / ${f1(wf.a.writes.p99)}`, '-', '-', '-'],
          [
            'FB: bare NestJS floor, a BullMQ job per write',
            f0(wf.b.writes.rps),
            `${f1(wf.b.writes.p50)} / ${f1(wf.b.writes.p99)}`,
            `${f0(wf.b.deliveries.endToEndRate)} / ${f0(wf.b.deliveries.windowRate)}`,
            `${ms(wf.b.deliveries.latency.p50)} / ${ms(wf.b.deliveries.latency.p99)} / ${ms(wf.b.deliveries.latency.max)}`,
            f0(wf.b.deliveries.tailAfterWritesMs),
          ],
        ]
      : []),
  ];
  out.push(
    table(
      ['phase', 'writes/s', 'write p50 / p99 ms', 'deliveries/s (first write → last arrival / first → last arrival)', 'write→delivery p50 / p99 / max ms', 'last arrival after last write ms'],
      rows,
    ),
  );
  out.push('');
  const g = {
    deliveriesVsFloor: b.deliveries.endToEndRate / c.rate,
    windowVsFloor: b.deliveries.windowRate / c.rate,
    p99Ms: b.deliveries.latency.p99,
    writesVsNoWebhook: b.writes.rps / a.writes.rps,
    floorWritesVsNoWebhook: wf ? wf.b.writes.rps / wf.a.writes.rps : NaN,
  };
  const bulk = bs.find((p) => p.label === 'B-bulk');
  const incomplete = b.deliveries.complete ? '' : ` (only ${b.deliveries.delivered} of ${b.deliveries.expected} delivered)`;
  out.push('### Goals (phase B against A and C of the same run)');
  out.push('');
  out.push(
    table(
      ['goal', 'value', 'target', 'verdict'],
      [
        ['deliveries B / floor C', `${f2(g.deliveriesVsFloor)} (${f0(b.deliveries.endToEndRate)} / ${f0(c.rate)})`, `≥ ${GOALS.deliveriesVsFloor}`, verdict(b.deliveries.complete && g.deliveriesVsFloor >= GOALS.deliveriesVsFloor) + incomplete],
        ['  same, over B\'s delivery window', `${f2(g.windowVsFloor)} (${f0(b.deliveries.windowRate)} / ${f0(c.rate)})`, `≥ ${GOALS.deliveriesVsFloor}`, verdict(b.deliveries.complete && g.windowVsFloor >= GOALS.deliveriesVsFloor) + incomplete],
        ['p99 write → delivery (B)', ms(g.p99Ms), `< ${GOALS.p99Ms} ms`, verdict(g.p99Ms < GOALS.p99Ms) + incomplete],
        ['writes B / writes A', `${f2(g.writesVsNoWebhook)} (${f0(b.writes.rps)} / ${f0(a.writes.rps)})`, `≥ ${GOALS.writesVsNoWebhook}`, verdict(g.writesVsNoWebhook >= GOALS.writesVsNoWebhook)],
        ...(wf
          ? [
              ['  the same ratio on the floor: FB / FA', `${f2(g.floorWritesVsNoWebhook)} (${f0(wf.b.writes.rps)} / ${f0(wf.a.writes.rps)})`, 'diagnostic', ''],
              ['  docstore\'s ratio ÷ the floor\'s', f2(g.writesVsNoWebhook / g.floorWritesVsNoWebhook), 'diagnostic', ''],
            ]
          : []),
        ...(bulk
          ? [['B-bulk drain (first → last arrival) / floor C', `${f2(bulk.deliveries.windowRate / c.rate)} (${f0(bulk.deliveries.windowRate)} / ${f0(c.rate)})`, 'diagnostic', '']]
          : []),
      ],
    ),
  );
  out.push('');
  out.push(
    `Deliveries in phase B cannot outrun the writes that produce them: the first-write → last-arrival rate is at most B's write rate (${f0(b.writes.rps)}/s), ` +
      `so it is the write path, not delivery, that bounds it unless the writes are faster than ${f0(GOALS.deliveriesVsFloor * c.rate)}/s. ` +
      (bulk ? `B-bulk writes the same number of events in ${f2(bulk.writes.seconds)} s, so its arrival window shows what delivery alone sustains. ` : ''),
  );
  out.push('');

  out.push('### CPU by process (ms of CPU per phase; cores = CPU ms / wall ms)');
  out.push('');
  const cpuRow = (name: string, u: CpuUse, n: number) => [
    name,
    f1(u.seconds),
    `${f0(u.docstoreMain)} (${f0(perOp(u.docstoreMain, n))} µs/doc)`,
    `${f0(u.docstore)} (${cores(u.docstore, u.seconds)})`,
    `${f0(u.postgres)} (${cores(u.postgres, u.seconds)})`,
    `${f0(u.redis)} (${cores(u.redis, u.seconds)})`,
    `${f0(u.receiver)} (${cores(u.receiver, u.seconds)})`,
    `${f0(u.loadgen)} (${cores(u.loadgen, u.seconds)})`,
    f2(u.machineCores),
  ];
  out.push(
    table(
      ['window', 's', 'docstore JS thread ms', 'docstore process ms (cores)', 'PostgreSQL ms (cores)', 'Redis ms (cores)', 'receiver ms (cores)', 'load generator ms (cores)', 'machine busy cores'],
      [
        cpuRow('A: writes', a.cpu, CFG.writes),
        ...bs.flatMap((p) => [
          cpuRow(`${p.label}: writes only`, p.cpuWrites, CFG.writes),
          cpuRow(`${p.label}: first write → last arrival${p.deliveries.complete ? '' : ' before the stall'}`, p.cpuTotal, CFG.writes),
        ]),
        ...(wf ? [cpuRow('FA: floor writes (JS thread and process: bare-nest)', wf.a.cpu, CFG.writes), cpuRow('FB: first write → last arrival', wf.b.cpuTotal, CFG.writes)] : []),
      ],
    ),
  );
  out.push('');
  // Per delivery: what B's whole window cost beyond A's per-write cost, over the deliveries made.
  const extra = (aMs: number | null, bMs: number | null) =>
    aMs === null || bMs === null ? null : ((bMs - (aMs * b.writes.requests) / a.writes.requests) * 1000) / b.deliveries.delivered;
  out.push(
    `Docstore JS thread per write in A: ${f0(perOp(a.cpu.docstoreMain, CFG.writes))} µs; in B, beyond that, ≈ ${f0(extra(a.cpu.docstoreMain, b.cpuTotal.docstoreMain))} µs per delivery ` +
      `(outbox insert + relay + queue + attempt + record, over the ${b.deliveries.delivered} deliveries made). ` +
      `PostgreSQL per write in A: ${f0(perOp(a.cpu.postgres, CFG.writes))} µs; in B ≈ ${f0(extra(a.cpu.postgres, b.cpuTotal.postgres))} µs more per delivery. ` +
      `Floor C: ${f0((c.floorCpuMs * 1000) / CFG.writes)} µs of worker-process CPU per delivery (receiver ${f0(c.receiverCpuMs === null ? null : (c.receiverCpuMs * 1000) / CFG.writes)} µs).` +
      (wf
        ? ` Floor FB: bare-nest's JS thread ≈ ${f0(floorExtra(wf, (u) => u.docstoreMain))} µs and PostgreSQL ≈ ${f0(floorExtra(wf, (u) => u.postgres))} µs per delivery beyond FA's per write; ` +
          `the whole machine ≈ ${f0(machineExtra(a.cpu, b.cpuTotal, b.writes.requests))} µs per delivery for the docstore (B over A) and ≈ ${f0(machineExtra(wf.a.cpu, wf.b.cpuTotal, wf.b.writes.requests))} µs for the floor (FB over FA), ` +
          `against ${f0(machineExtra(null, a.cpu, a.writes.requests))} µs and ${f0(machineExtra(null, wf.a.cpu, wf.a.writes.requests))} µs per write without delivery.`
        : ''),
  );
  out.push('');

  out.push('### Queue and outbox while delivering');
  out.push('');
  out.push(
    table(
      ['phase', 'max Redis wait', 'max active', 'max delayed', '% samples with delayed jobs', 'max outbox due (not queued)', 'max outbox queued', 'outbox at end', 'delivered but not recorded (left queued)', 'duplicates', 'signature'],
      bs.map((p) => [
        p.label,
        String(p.samples.max.wait),
        String(p.samples.max.active),
        String(p.samples.max.delayed),
        f0(100 * p.samples.delayedShare),
        String(p.samples.max.due),
        String(p.samples.max.queued),
        p.outbox.map((s) => `${s.status} ${s.count}${s.queued ? `, ${s.queued} queued` : ''} (max attempts ${s.max_attempts}, mean ${f1(s.mean_ms)} ms)`).join('; '),
        `${p.stuck.deliveredButUnrecorded} (${p.stuck.queued})`,
        String(p.deliveries.duplicates),
        p.signatureOk === null ? '-' : p.signatureOk ? 'verified' : 'BAD',
      ]),
    ),
  );
  out.push('');
  out.push(
    `Payloads: B ${f0(b.deliveries.meanBodyBytes)} bytes mean, floor ${f0(c.meanBodyBytes)} bytes. Floor: enqueue of ${c.jobs} jobs ${f0(c.enqueueMs)} ms (before the clock), ` +
      `worker's own completion rate ${f0(c.workerRate)}/s, ${c.failed} failed, ${c.duplicates} duplicates` +
      (c.warmupRate !== null ? `, warm-up run ${f0(c.warmupRate)}/s.` : '.'),
  );
  out.push('');

  for (const p of bs) {
    if (!p.profile) continue;
    const s = p.profile;
    const usPerDoc = (share: number) => (p.cpuTotal.docstoreMain === null ? '-' : f0((share * p.cpuTotal.docstoreMain * 1000) / CFG.writes));
    out.push(`### CPU profile: docstore during ${p.label} (first write → last arrival; profiler on, so rates above are lower than unprofiled)`);
    out.push('');
    out.push(`Busy ${f1((100 * s.busyMs) / s.wallMs)}% of ${f1(s.wallMs / 1000)} s. µs/doc = share of busy samples × JS thread CPU per document.`);
    out.push('');
    out.push(table(['self time by group', 'µs/doc', '% busy'], s.groups.filter((x) => x.ms > 0).sort((x, y) => y.ms - x.ms).map((x) => [x.label, usPerDoc(x.share), f1(100 * x.share)])));
    out.push('');
    out.push(table(['inclusive', 'µs/doc', '% busy'], s.inclusive.map((x) => [x.label, usPerDoc(x.share), f1(100 * x.share)])));
    out.push('');
    out.push(table(['top self-time functions', 'where', 'µs/doc', '% busy'], s.topSelf.map((t) => [t.name, t.where, usPerDoc(t.share), f1(100 * t.share)])));
    out.push('');
  }
  return {
    text: out.join('\n'),
    goals: {
      deliveriesVsFloor: g.deliveriesVsFloor,
      deliveriesVsFloorMet: g.deliveriesVsFloor >= GOALS.deliveriesVsFloor,
      windowVsFloor: g.windowVsFloor,
      p99Ms: g.p99Ms,
      p99Met: g.p99Ms < GOALS.p99Ms,
      writesVsNoWebhook: g.writesVsNoWebhook,
      writesMet: g.writesVsNoWebhook >= GOALS.writesVsNoWebhook,
      floorWritesVsNoWebhook: g.floorWritesVsNoWebhook,
    },
  };
}

// ---------------------------------------------------------------------------------------
// Main

let cleanupWork: (() => Promise<void>) | undefined;
let cleanupStarted = false;

async function cleanup(): Promise<void> {
  if (cleanupStarted) return;
  cleanupStarted = true;
  await stopAllChildren();
  await cleanupWork?.();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    say(`${signal}: stopping children, cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  if (CFG.build) {
    say('building docstore (npx nx run docstore:build; BENCH_BUILD=0 skips)');
    const build = spawnSync('npx', ['nx', 'run', 'docstore:build', '--output-style=static'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (build.status !== 0) throw new Error('npx nx run docstore:build failed');
  }
  if (!fs.existsSync(DIST_MAIN)) throw new Error(`${DIST_MAIN} is missing: build the docstore first`);

  const run = randomBytes(4).toString('hex');
  const redisPrefix = `bench:wh:${run}:`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'webhook-bench-'));
  if (CFG.profile && CFG.profileDir) fs.mkdirSync(CFG.profileDir, { recursive: true });
  const logFile = CFG.logFile || path.join(tmp, 'docstore.log');
  const dbUrl = await recreateDatabase(CFG.adminUrl, CFG.dbName);
  const pg = new PgPool({ connectionString: dbUrl, max: 3 });
  const redis = new Redis(CFG.redisUrl, { maxRetriesPerRequest: 1 });
  say(`database ${CFG.dbName} created; Redis prefix ${redisPrefix}; docstore log → ${logFile}`);
  cleanupWork = async () => {
    await pg.end().catch(() => undefined);
    redis.disconnect();
    if (!CFG.keepDb) await dropDatabase(CFG.adminUrl, CFG.dbName).catch((e) => say(`could not drop ${CFG.dbName}: ${e.message}`));
    const n = await clearRedis(CFG.redisUrl, redisPrefix).catch((e) => (say(`could not clear Redis keys ${redisPrefix}*: ${e.message}`), 0));
    fs.rmSync(tmp, { recursive: true, force: true });
    say(`${CFG.keepDb ? `kept ${CFG.dbName}` : `dropped ${CFG.dbName}`}, deleted ${n} Redis keys ${redisPrefix}*`);
  };

  const receiver = spawnNode({ name: 'receiver', args: ['-r', REGISTER, path.join(__dirname, 'webhooks/receiver.ts')], ipc: true, env: { ...process.env, NODE_ENV: 'production' } });
  const { port: receiverPort } = await nextMessage<{ ready?: boolean; port: number }>(receiver, (m) => m?.ready === true);
  const receiverUrl = `http://127.0.0.1:${receiverPort}/hook`;

  const docPort = await freePort();
  const logFd = fs.openSync(logFile, 'a');
  say(`starting docstore (LOG_LEVEL=${CFG.logLevel}${CFG.profile ? ', profiler hook' : ''})`);
  const docstore = spawnNode({
    name: 'docstore',
    args: [...(CFG.profile ? ['-r', PROFILE_HOOK] : []), DIST_MAIN],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(docPort),
      DATABASE_URL: dbUrl,
      DB_POOL_SIZE: String(CFG.poolSize),
      REDIS_URL: CFG.redisUrl,
      REDIS_PREFIX: redisPrefix,
      LOG_LEVEL: CFG.logLevel,
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000000000',
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      ENCRYPTION_KEYS: process.env.ENCRYPTION_KEYS || `bench:${randomBytes(32).toString('base64')}`,
    },
    stdout: logFd,
    ipc: CFG.profile,
  });
  await waitHttpReady(docstore, docPort, '/health');

  const ctx: Ctx = { run, dbUrl, redisPrefix, floorPrefix: `${redisPrefix}floor`, tmp, pg, redis, docstore, docPort, receiver, receiverUrl };
  const procs: Procs = { docstore, receiver };

  await warmUp(ctx);
  const a = await phaseA(ctx, procs);
  const bs: PhaseB[] = [await phaseB(ctx, procs, 'single')];
  if (CFG.bulk) bs.push(await phaseB(ctx, procs, 'bulk'));

  const logBytes = fs.fstatSync(logFd).size;
  fs.closeSync(logFd);
  // The floor gets the machine without the docstore.
  await stopChild(docstore);
  const template = bs[0].sample?.body;
  if (!template) throw new Error('phase B kept no sample body');
  const c = await phaseC(ctx, template);
  const wf = CFG.writeFloor ? await writeFloor(ctx) : null;

  const info = `Docstore log: ${(logBytes / 1e6).toFixed(1)} MB (${logFile === '/dev/null' ? '/dev/null' : 'file'}).`;
  const { text, goals } = report(a, bs, c, wf, info);
  process.stdout.write(`\n${text}\n`);
  if (CFG.json) {
    const strip = (p: PhaseB) => ({ ...p, writes: { ...p.writes, doneAt: undefined } });
    fs.writeFileSync(CFG.json, JSON.stringify({ config: CFG, goals, a: { ...a, writes: { ...a.writes, doneAt: undefined } }, b: bs.map(strip), c, writeFloor: wf, report: text }, null, 2));
  }
  if (CFG.profile && CFG.profileDir) say(`profiles kept in ${CFG.profileDir}`);
  const failed = bs.filter((p) => !p.deliveries.complete);
  if (failed.length > 0) {
    say(`FAILED: ${failed.map((p) => `phase ${p.label} delivered ${p.deliveries.delivered} of ${p.deliveries.expected} (${p.wait.reason})`).join('; ')}`);
    process.exitCode = 1;
  }
}

main()
  .catch((error) => {
    process.stderr.write(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(() => cleanup());
