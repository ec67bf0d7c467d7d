/**
 * Push: the built ingest-push, as deployed (an API process and a push worker process), takes
 * BENCH_PUSH_TOTAL Android pushes, due at once, in POST /api/pushm/bulk requests of BENCH_PUSH_BATCH
 * items and sends them through its FCM adapter to a loopback FCM (lib/sink.ts). Then the floor: a
 * bare BullMQ worker POSTing the FCM messages of its jobs to the same sink over as many connections
 * as the app's provider pool.
 *
 *   node bench/run.js push   (BENCH_PUSH_TOTAL, BENCH_PUSH_BATCH, ... in bench/README.md)
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  arrivals,
  bench,
  built,
  closedLoop,
  cpuMs,
  machineCpuMs,
  f0,
  f1,
  f2,
  num,
  percentile,
  report,
  rpc,
  rssMb,
  say,
  setting,
  startIpcChild,
  startServer,
  stopChild,
  type Request,
} from './lib/harness';

const CFG = {
  total: Math.max(1, num('BENCH_PUSH_TOTAL', 100_000)),
  batch: Math.max(1, num('BENCH_PUSH_BATCH', 1000)),
  concurrency: Math.max(1, num('BENCH_PUSH_CONCURRENCY', 2)),
  warmup: num('BENCH_PUSH_WARMUP', 5000),
  timeoutS: Math.max(10, num('BENCH_PUSH_TIMEOUT', 300)),
};

/** The V8 flag the push workers' Deployment adds to the heap bound (k8s/base/ingest-push.yaml), given to the floor too. */
const WORKER_NODE_OPTIONS = '--max-semi-space-size=32';

bench('push', 'ingest-push', async (run) => {
  const [fcm, { port }] = await startIpcChild<{ port: number }>('fake FCM', 'lib/sink.ts');
  const fcmUrl = `http://127.0.0.1:${port}`;
  const keyFile = path.join(run.tmp, 'service-account.json');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const account = {
    project_id: 'bench',
    client_email: 'bench@bench.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    token_uri: `${fcmUrl}/token`,
  };
  fs.writeFileSync(keyFile, JSON.stringify(account));
  // The floor works as the app does: its connections, worker concurrency and pushes per job.
  const [connections, concurrency, perJob] = ['PUSH_PROVIDER_CONNECTIONS', 'PUSH_CONCURRENCY', 'PUSH_ITEMS_PER_JOB'].map((key) =>
    setting('ingest-push/apps/ingest-push/src/push/push.config.js', 'PushConfig', key),
  );
  // As deployed (k8s/base/ingest-push.yaml): an API process that records and relays (PUSH_WORKERS=off) and a
  // worker process that relays and sends (PUSH_WORKERS=only).
  const env = {
    DATABASE_URL: run.dbUrl,
    REDIS_PREFIX: run.redisPrefix,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    PUSH_PROVIDER_ANDROID: 'fcm',
    PUSH_PROVIDER_CONNECTIONS: connections,
    PUSH_CONCURRENCY: concurrency,
    PUSH_ITEMS_PER_JOB: perJob,
    FCM_BASE_URL: fcmUrl,
    FCM_SERVICE_ACCOUNT_FILE: keyFile,
  };
  const app = await startServer('ingest-push', built('ingest-push'), { ...env, PUSH_WORKERS: 'off' });
  const worker = await startServer('ingest-push-workers', built('ingest-push'), { ...env, PUSH_WORKERS: 'only', NODE_OPTIONS: WORKER_NODE_OPTIONS });
  const cpu = () => [cpuMs(app.process.pid), cpuMs(worker.process.pid)];
  const pushAccount = await run.pg.query(`INSERT INTO ingest_push.accounts (name) VALUES ($1) RETURNING id`, [`bench-${randomUUID()}`]);
  const [id, secret] = [randomUUID(), randomBytes(20).toString('hex')];
  await run.pg.query(`INSERT INTO ingest_push.push_tokens (id, account_id, name, secret_hash) VALUES ($1, $2, 'bench', $3)`, [
    id,
    pushAccount.rows[0].id,
    createHash('sha256').update(secret).digest(),
  ]);
  const headers = { authorization: `Bearer push_${id}_${secret}`, accept: 'application/json', 'content-type': 'application/hal+json' };

  /** Pushes `b-<from>` … in requests of BENCH_PUSH_BATCH, BENCH_PUSH_CONCURRENCY at a time, until all reached the fake FCM. */
  const measure = async (from: number, total: number) => {
    const requests: Request[] = [];
    for (let i = 0; i < total; i += CFG.batch) {
      const items = Array.from({ length: Math.min(CFG.batch, total - i) }, (_, k) => ({
        nm_envio: 'bench',
        nm_push: `b-${from + i + k}`,
        nm_titulo: 'Oi {{nome}}',
        nm_mensagem: 'Seu cupom: {{cupom}}',
        url_scheme: 'app://promo',
        campos: 'nome,cupom',
        valor: 'Ana,X10',
        nm_plataforma: 'android',
      }));
      requests.push({ method: 'POST', path: '/api/pushm/bulk', body: JSON.stringify({ pushs: items }) });
    }
    const due = new Map<string, number>();
    const rss: Array<[number, number]> = [];
    const sampler = setInterval(() => rss.push([rssMb(app.process.pid) ?? NaN, rssMb(worker.process.pid) ?? NaN]), 250);
    const cpu0 = cpu();
    const machine0 = machineCpuMs();
    const sent = await closedLoop(`http://127.0.0.1:${app.port}`, {
      connections: CFG.concurrency,
      headers,
      requests,
      status: 202,
      onAnswer: (r, _start, _end, body) => {
        for (const item of JSON.parse(body).items) due.set(`b-${from + r * CFG.batch + item.index}`, Date.parse(item.due_at));
      },
    });
    if (sent.failed > 0) throw new Error(`${sent.failed} requests failed: ${sent.firstError}`);
    const got = await arrivals(fcm, total, 'pushes', CFG.timeoutS);
    clearInterval(sampler);
    const cpuUs = cpu().map((ms, i) => ((ms - cpu0[i]) * 1000) / total);
    const machineUs = ((machineCpuMs() - machine0) * 1000) / total;
    const lags = Float64Array.from(got.keys, (device, i) => got.times[i] - due.get(device)!).sort();
    return {
      sent,
      rate: (total / (Math.max(...got.times) - sent.first)) * 1000,
      lagP50: percentile(lags, 50),
      lagP99: percentile(lags, 99),
      rss,
      cpuUs,
      machineUs,
    };
  };
  if (CFG.warmup > 0) {
    say(`warm-up: ${CFG.warmup} pushes`);
    await measure(0, CFG.warmup);
  }
  say(`run: ${CFG.total} pushes in requests of ${CFG.batch}, ${CFG.concurrency} at a time`);
  const result = await measure(1_000_000, CFG.total);
  await Promise.all([stopChild(app), stopChild(worker)]);

  say(`floor: bare BullMQ worker, concurrency ${concurrency}, ${perJob} pushes a job, ${connections} connections`);
  const [floor] = await startIpcChild('bullmq floor', 'floors/bullmq.ts', {
    FLOOR_PREFIX: `${run.redisPrefix}floor`,
    FLOOR_TARGET: `${fcmUrl}/v1/projects/bench/messages:send`,
    FLOOR_CONCURRENCY: concurrency,
    FLOOR_CONNECTIONS: connections,
    NODE_OPTIONS: WORKER_NODE_OPTIONS,
  });
  const floorRun = async (count: number, queue: string) => {
    const [cpu0, machine0] = [cpuMs(floor.process.pid), machineCpuMs()];
    const r = await rpc<{ t0: number; t1: number; failed: number; firstError: string }>(
      floor,
      { cmd: 'run', kind: 'push', count, queue, perJob },
      CFG.timeoutS * 1000,
    );
    if (r.failed > 0) throw new Error(`floor: ${r.failed} jobs failed: ${r.firstError}`);
    await arrivals(fcm, count, `floor ${queue}`, CFG.timeoutS);
    return { ...r, cpuUs: ((cpuMs(floor.process.pid) - cpu0) * 1000) / count, machineUs: ((machineCpuMs() - machine0) * 1000) / count };
  };
  // Warmed up as the app was.
  if (CFG.warmup > 0) await floorRun(CFG.warmup, 'warm-up');
  const f = await floorRun(CFG.total, 'run');
  const floorRate = (CFG.total / (f.t1 - f.t0)) * 1000;

  const rss = result.rss;
  const at = (p: number) => rss[Math.min(rss.length - 1, Math.floor((p / 100) * rss.length))];
  const rows = [
    ['acceptance p50 / p99 per request (ms)', `${f1(result.sent.p50)} / ${f1(result.sent.p99)}`],
    ['end to end (pushes/s)', f0(result.rate)],
    ['floor: bare BullMQ worker (pushes/s)', f0(floorRate)],
    ['end to end ÷ floor', f2(result.rate / floorRate)],
    ['CPU per push, API + worker / floor process (µs)', `${f0(result.cpuUs[0])} + ${f0(result.cpuUs[1])} / ${f0(f.cpuUs)}`],
    ['CPU per push, whole machine, app run / floor run (µs)', `${f0(result.machineUs)} / ${f0(f.machineUs)}`],
    ['lag due → sent p50 / p99 (ms)', `${f0(result.lagP50)} / ${f0(result.lagP99)}`],
    ['RSS of API, worker at 10 / 50 / 90 / 100 % of the run (MB)', [at(10), at(50), at(90), at(100)].map(([a, w]) => `${f0(a)}, ${f0(w)}`).join(' / ')],
  ];
  process.stdout.write(report(`Push, ${CFG.total} pushes in requests of ${CFG.batch}`, ['measure', 'value'], rows));
});
