/**
 * Bulk push benchmark (issue 12, "Speed"): the built ingest-push app (one child process)
 * takes BENCH_PUSH_TOTAL pushes (Android, due at once) in POST /api/pushm/bulk requests of
 * BENCH_PUSH_BATCH items and sends them through its FCM adapter to a loopback fake of FCM
 * (bench/push/fake-fcm.ts, its own process). Reported: acceptance time per request
 * (p50/p99), end-to-end pushes/s (first request sent → last push at the fake), the lag
 * from each push's due time to its arrival at the fake (p50/p99), and the app's RSS over
 * the run. In the same run, the floor: a bare BullMQ worker doing one HTTP POST per job to
 * the same fake (bench/push/bullmq-floor.ts). See bench/README.md, "Push".
 *
 *   node bench/run.js push   (BENCH_PUSH_TOTAL, BENCH_PUSH_BATCH, BENCH_PUSH_CONCURRENCY, BENCH_FLOOR_CONCURRENCY, BENCH_BUILD)
 */
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Pool as PgPool } from 'pg';
import { Pool } from 'undici';
import {
  clearRedis, dropDatabase, f0, f1, f2, flag, freePort, nextMessage, num, percentile, recreateDatabase, REGISTER, ROOT, rpc, say, spawnNode,
  stopAllChildren, table, waitHttpReady, wallMs, type Child,
} from './lib/harness';

const DIST_PUSH = path.join(ROOT, 'dist/ingest-push/apps/ingest-push/src/main.js');

const CFG = {
  adminUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  dbName: process.env.BENCH_PUSH_DB || 'bench_push',
  redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
  total: Math.max(1, num('BENCH_PUSH_TOTAL', 100_000)),
  batch: Math.max(1, num('BENCH_PUSH_BATCH', 1000)),
  /** Requests in flight at once. */
  concurrency: Math.max(1, num('BENCH_PUSH_CONCURRENCY', 2)),
  warmup: num('BENCH_PUSH_WARMUP', 5000),
  floorConcurrency: Math.max(1, num('BENCH_FLOOR_CONCURRENCY', 64)),
  timeoutS: Math.max(10, num('BENCH_PUSH_TIMEOUT', 300)),
  build: flag('BENCH_BUILD', true),
  keepDb: flag('BENCH_KEEP_DB', false),
  json: process.env.BENCH_JSON || '',
};

/** The app's push settings this run passes through from the environment (unset = the app's default). */
const PUSH_ENV = ['PUSH_CONCURRENCY', 'PUSH_ITEMS_PER_JOB', 'PUSH_PROVIDER_CONNECTIONS', 'PUSH_RELAY_INTERVAL_MS', 'PUSH_MAX_QUEUED_PER_ACCOUNT', 'DB_POOL_SIZE'] as const;
const GOALS = { acceptP99Ms: 300, vsFloor: 0.6 };

interface Run {
  requests: number;
  acceptP50: number;
  acceptP99: number;
  acceptMax: number;
  errors: number;
  firstError: string | null;
  seconds: number;
  pushesPerSecond: number;
  lagP50: number;
  lagP99: number;
  lagMax: number;
  rssMb: number[];
}

function rssMb(pid: number | undefined): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)/.exec(status);
    return kb ? Number(kb[1]) / 1024 : null;
  } catch {
    return null;
  }
}

function items(from: number, count: number): Array<Record<string, string>> {
  return Array.from({ length: count }, (_, k) => ({
    nm_envio: 'bench',
    nm_push: `b-${from + k}`,
    nm_titulo: 'Oi {{nome}}',
    nm_mensagem: 'Seu cupom: {{cupom}}',
    url_scheme: 'app://promo',
    campos: 'nome,cupom',
    valor: 'Ana,X10',
    nm_plataforma: 'android',
  }));
}

/** Sends `total` pushes from device number `from`, `concurrency` requests at a time; returns per-request times and each push's due time. */
async function submit(http: Pool, token: string, from: number, total: number): Promise<{ latencies: number[]; due: Map<string, number>; start: number; errors: number; firstError: string | null }> {
  const latencies: number[] = [];
  const due = new Map<string, number>();
  let errors = 0;
  let firstError: string | null = null;
  let next = 0;
  const start = wallMs();
  const worker = async () => {
    for (;;) {
      const offset = next;
      if (offset >= total) return;
      next += CFG.batch;
      const count = Math.min(CFG.batch, total - offset);
      const body = JSON.stringify({ pushs: items(from + offset, count) });
      const t0 = wallMs();
      const res = await http.request({
        method: 'POST',
        path: '/api/pushm/bulk',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/hal+json' },
        body,
      });
      const text = await res.body.text();
      latencies.push(wallMs() - t0);
      if (res.statusCode !== 202) {
        errors++;
        firstError ??= `${res.statusCode} ${text.slice(0, 200)}`;
        continue;
      }
      const answer = JSON.parse(text) as { items: Array<{ index: number; due_at?: string }> };
      for (const item of answer.items) if (item.due_at) due.set(`b-${from + offset + item.index}`, Date.parse(item.due_at));
    }
  };
  await Promise.all(Array.from({ length: CFG.concurrency }, worker));
  return { latencies, due, start, errors, firstError };
}

/** Waits until the fake has `n` distinct devices; throws after CFG.timeoutS. */
async function waitSent(fake: Child, n: number, what: string): Promise<void> {
  const deadline = Date.now() + CFG.timeoutS * 1000;
  for (;;) {
    const { unique } = await rpc<{ unique: number }>(fake, { cmd: 'count' });
    if (unique >= n) return;
    if (Date.now() > deadline) throw new Error(`${what}: only ${unique} of ${n} pushes arrived within ${CFG.timeoutS} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function measure(http: Pool, token: string, fake: Child, app: Child, from: number, total: number): Promise<Run> {
  await rpc(fake, { cmd: 'take' });
  const rss: number[] = [];
  const sampler = setInterval(() => {
    const mb = rssMb(app.process.pid);
    if (mb !== null) rss.push(mb);
  }, 250);
  const sent = await submit(http, token, from, total);
  await waitSent(fake, total - sent.errors * CFG.batch, 'push run');
  clearInterval(sampler);
  const { devices, times } = await rpc<{ devices: string[]; times: number[] }>(fake, { cmd: 'take' });
  const lags: number[] = [];
  let last = 0;
  for (let i = 0; i < devices.length; i++) {
    const due = sent.due.get(devices[i]);
    if (due !== undefined) lags.push(Math.max(0, times[i] - due));
    last = Math.max(last, times[i]);
  }
  if (devices.length !== new Set(devices).size) throw new Error(`${devices.length - new Set(devices).size} pushes arrived twice`);
  lags.sort((a, b) => a - b);
  const latencies = [...sent.latencies].sort((a, b) => a - b);
  const seconds = (last - sent.start) / 1000;
  return {
    requests: latencies.length,
    acceptP50: percentile(latencies, 50),
    acceptP99: percentile(latencies, 99),
    acceptMax: latencies[latencies.length - 1],
    errors: sent.errors,
    firstError: sent.firstError,
    seconds,
    pushesPerSecond: devices.length / seconds,
    lagP50: percentile(lags, 50),
    lagP99: percentile(lags, 99),
    lagMax: lags[lags.length - 1],
    rssMb: rss,
  };
}

/** A push token straight in the database: `push_<id>_<secret>`, only the secret's SHA-256 stored. */
async function mintPushToken(pg: PgPool): Promise<string> {
  const account = await pg.query<{ id: string }>(`INSERT INTO ingest_push.accounts (name) VALUES ($1) RETURNING id`, [`bench-${randomUUID()}`]);
  const id = randomUUID();
  const secret = randomBytes(30).toString('base64url').replace(/[^A-Za-z0-9]/g, '').slice(0, 40);
  await pg.query(`INSERT INTO ingest_push.push_tokens (id, account_id, name, secret_hash) VALUES ($1, $2, 'bench', $3)`, [id, account.rows[0].id, createHash('sha256').update(secret).digest()]);
  return `push_${id}_${secret}`;
}

let cleanupWork: (() => Promise<void>) | undefined;

async function cleanup(): Promise<void> {
  await stopAllChildren();
  await cleanupWork?.();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void cleanup().finally(() => process.exit(130)));
}

async function main(): Promise<void> {
  if (CFG.build) {
    say('building ingest-push (npx nx run ingest-push:build; BENCH_BUILD=0 skips)');
    const build = spawnSync('npx', ['nx', 'run', 'ingest-push:build', '--output-style=static'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (build.status !== 0) throw new Error('npx nx run ingest-push:build failed');
  }
  if (!fs.existsSync(DIST_PUSH)) throw new Error(`${DIST_PUSH} is missing: build ingest-push first`);

  const run = randomBytes(4).toString('hex');
  const redisPrefix = `bench:push:${run}:`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'push-bench-'));
  const dbUrl = await recreateDatabase(CFG.adminUrl, CFG.dbName);
  const pg = new PgPool({ connectionString: dbUrl, max: 2 });
  cleanupWork = async () => {
    await pg.end().catch(() => undefined);
    if (!CFG.keepDb) await dropDatabase(CFG.adminUrl, CFG.dbName).catch((e: Error) => say(`could not drop ${CFG.dbName}: ${e.message}`));
    await clearRedis(CFG.redisUrl, redisPrefix).catch(() => 0);
    fs.rmSync(tmp, { recursive: true, force: true });
  };

  const fake = spawnNode({ name: 'fake-fcm', args: ['-r', REGISTER, path.join(__dirname, 'push/fake-fcm.ts')], ipc: true, env: { ...process.env, NODE_ENV: 'production' } });
  const { port: fakePort } = await nextMessage<{ ready?: boolean; port: number }>(fake, (m) => m?.ready === true);
  const fakeUrl = `http://127.0.0.1:${fakePort}`;
  const keyFile = path.join(tmp, 'service-account.json');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  fs.writeFileSync(keyFile, JSON.stringify({ project_id: 'bench', client_email: 'bench@bench.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), token_uri: `${fakeUrl}/token` }));

  const appPort = await freePort();
  const passed = Object.fromEntries(PUSH_ENV.filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
  const app = spawnNode({
    name: 'ingest-push',
    args: [DIST_PUSH],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(appPort),
      DATABASE_URL: dbUrl,
      REDIS_URL: CFG.redisUrl,
      REDIS_PREFIX: redisPrefix,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      PUSH_PROVIDER_ANDROID: 'fcm',
      FCM_BASE_URL: fakeUrl,
      FCM_SERVICE_ACCOUNT_FILE: keyFile,
      ...passed,
    },
  });
  await waitHttpReady(app, appPort, '/health');
  const token = await mintPushToken(pg);
  const http = new Pool(`http://127.0.0.1:${appPort}`, { connections: CFG.concurrency });

  if (CFG.warmup > 0) {
    say(`warm-up: ${CFG.warmup} pushes`);
    await measure(http, token, fake, app, 0, CFG.warmup);
  }
  say(`run: ${CFG.total} pushes in requests of ${CFG.batch}, ${CFG.concurrency} at a time`);
  const result = await measure(http, token, fake, app, 1_000_000, CFG.total);
  await http.close();

  say(`floor: bare BullMQ worker (concurrency ${CFG.floorConcurrency}), one POST per job, ${CFG.total} jobs`);
  const floor = spawnNode({
    name: 'floor',
    args: ['-r', REGISTER, path.join(__dirname, 'push/bullmq-floor.ts')],
    ipc: true,
    env: { ...process.env, NODE_ENV: 'production', FLOOR_PREFIX: `${redisPrefix}floor`, FLOOR_TARGET: `${fakeUrl}/v1/projects/bench/messages:send`, FLOOR_CONCURRENCY: String(CFG.floorConcurrency) },
  });
  await nextMessage<{ ready?: boolean }>(floor, (m) => m?.ready === true);
  await rpc(fake, { cmd: 'take' });
  const f = await rpc<{ t0: number; t1: number; completed: number; failed: number }>(floor, { cmd: 'run', count: CFG.total, queue: `floor-${run}` }, CFG.timeoutS * 1000);
  const floorRate = f.completed / ((f.t1 - f.t0) / 1000);

  const rss = result.rssMb;
  const q = (p: number) => rss[Math.min(rss.length - 1, Math.floor((p / 100) * rss.length))];
  const vsFloor = result.pushesPerSecond / floorRate;
  process.stdout.write(
    `\n${table(
      ['measure', 'value', 'goal'],
      [
        ['acceptance p50 per request (ms)', f1(result.acceptP50), ''],
        ['acceptance p99 per request (ms)', f1(result.acceptP99), `< ${GOALS.acceptP99Ms}`],
        ['acceptance max (ms)', f1(result.acceptMax), ''],
        ['end to end (pushes/s)', f0(result.pushesPerSecond), ''],
        ['floor: bare BullMQ + POST (jobs/s)', f0(floorRate), ''],
        ['end to end / floor', f2(vsFloor), `>= ${GOALS.vsFloor}`],
        ['lag due → sent p50 (ms)', f0(result.lagP50), ''],
        ['lag due → sent p99 (ms)', f0(result.lagP99), ''],
        ['app RSS at 10/50/90/100 % of the run (MB)', [q(10), q(50), q(90), rss[rss.length - 1]].map(f0).join(' / '), 'flat'],
        ['request errors', String(result.errors), '0'],
      ],
    )}\n`,
  );
  if (result.firstError) say(`first error: ${result.firstError}`);
  if (CFG.json) fs.writeFileSync(CFG.json, JSON.stringify({ cfg: CFG, settings: passed, result: { ...result, rssMb: [q(10), q(50), q(90), rss[rss.length - 1]] }, floor: { ...f, rate: floorRate }, vsFloor }, null, 2));
}

main()
  .catch((error: Error) => {
    say(`failed: ${error.stack ?? error.message}`);
    process.exitCode = 1;
  })
  .finally(() => void cleanup());
