/**
 * Webhooks: document creates on the built docstore without a webhook (A) and with one webhook
 * on a loopback receiver (B; B-bulk writes the same events in bulk requests, so the outbox
 * fills at once and the arrivals show what delivery alone sustains). Floors, after the
 * docstore is stopped: C, a bare BullMQ worker POSTing the same payloads to the same receiver;
 * FA and FB, the bare NestJS floor doing the same creates without and with a bare BullMQ job
 * per write, the floor of the writes ratio B ÷ A.
 *
 *   node bench/run.js webhooks   (BENCH_WEBHOOK_WRITES, BENCH_CONNECTIONS, ... in bench/README.md)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  arrivals,
  bench,
  built,
  closedLoop,
  docstoreToken,
  f0,
  f1,
  f2,
  num,
  percentile,
  productData,
  report,
  ROOT,
  rpc,
  say,
  settle,
  setting,
  startIpcChild,
  startServer,
  stopChild,
  type Arrivals,
  type Child,
  type Request,
  type Run,
} from './lib/harness';
import { captureSql } from './lib/sql';

const CFG = {
  writes: Math.max(1, num('BENCH_WEBHOOK_WRITES', 10_000)),
  warmup: num('BENCH_WEBHOOK_WARMUP', 1000),
  connections: Math.max(1, num('BENCH_CONNECTIONS', 64)),
  bulkItems: Math.max(1, num('BENCH_BULK_ITEMS', 1000)),
  timeoutS: Math.max(10, num('BENCH_WEBHOOK_TIMEOUT', 300)),
  poolSize: num('DB_POOL_SIZE', 20),
};
const TABLES = ['docstore.documents', 'docstore.document_history', 'docstore.webhook_deliveries', 'docstore.webhook_attempts'];
const keyOf = (i: number) => `sku-${String(i).padStart(5, '0')}`;
const docPath = (clientId: string, key: string) => `/api/v1/client/${clientId}/production/context/shop/type/product/${key}`;

interface Phase {
  name: string;
  writesPerS: number;
  writeP99: number;
  /** Deliveries per second from the first write sent (or the worker's start) to the last arrival, and over the arrivals alone. */
  endToEnd?: number;
  drain?: number;
  deliveryP99?: number;
}

/** `n` creates (or bulk requests of BENCH_BULK_ITEMS) and, with a receiver, their deliveries. */
async function phase(
  name: string,
  port: number,
  clientId: string,
  token: string,
  receiver: Child | null,
  bulk = false,
  n = CFG.writes,
): Promise<Phase & { sample?: Arrivals['sample'] }> {
  const headers: Record<string, string> = token
    ? { 'content-type': 'application/json', authorization: `Bearer ${token}` }
    : { 'content-type': 'application/json' };
  const requests: Request[] = [];
  for (let i = 0; i < n; i += bulk ? CFG.bulkItems : 1) {
    const keys = Array.from({ length: bulk ? Math.min(CFG.bulkItems, n - i) : 1 }, (_, j) => i + j);
    const body = bulk
      ? { documents: keys.map((k) => ({ key: keyOf(k), data: productData(k) })) }
      : { environment: 'production', context: 'shop', type: 'product', key: keyOf(i), data: productData(i) };
    requests.push({ method: 'POST', path: docPath(clientId, bulk ? 'bulk' : keyOf(i)), body: JSON.stringify(body) });
  }
  const doneAt = new Float64Array(n);
  const per = bulk ? CFG.bulkItems : 1;
  const writes = await closedLoop(`http://127.0.0.1:${port}`, {
    connections: CFG.connections,
    headers,
    requests,
    status: bulk ? 200 : 201,
    onAnswer: (i, _start, end) => doneAt.fill(end, i * per, Math.min(n, (i + 1) * per)),
  });
  if (writes.failed > 0) throw new Error(`${name}: ${writes.failed} writes failed; first: ${writes.firstError}`);
  const result: Phase & { sample?: Arrivals['sample'] } = { name, writesPerS: (n / (writes.last - writes.first)) * 1000, writeP99: writes.p99 };
  if (!receiver) return result;
  const got = await arrivals(receiver, n, name, CFG.timeoutS);
  const lag = Float64Array.from(got.keys, (key, i) => got.times[i] - doneAt[Number(key.slice(4))]).sort();
  const [first, last] = [Math.min(...got.times), Math.max(...got.times)];
  say(`  ${name}: ${f0(result.writesPerS)} writes/s, deliveries p99 ${f1(percentile(lag, 99))} ms`);
  return { ...result, endToEnd: (n / (last - writes.first)) * 1000, drain: (n / (last - first)) * 1000, deliveryP99: percentile(lag, 99), sample: got.sample };
}

bench('webhooks', 'docstore', async (run: Run) => {
  const [receiver, { port: receiverPort }] = await startIpcChild<{ port: number }>('receiver', 'lib/sink.ts');
  const receiverUrl = `http://127.0.0.1:${receiverPort}/hook`;
  // The floors deliver with the engine's concurrency and its most requests in flight to one receiver.
  const concurrency = setting('docstore/libs/webhooks/src/webhook.config.js', 'WebhookServiceConfig', 'WEBHOOK_CONCURRENCY');
  const inFlight = setting('docstore/libs/webhooks/src/webhook.config.js', 'WebhookServiceConfig', 'WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK');
  const env = { DATABASE_URL: run.dbUrl, DB_POOL_SIZE: String(CFG.poolSize), REDIS_PREFIX: run.redisPrefix };
  const logFd = fs.openSync(path.join(run.tmp, 'docstore.log'), 'a');
  const docstore = await startServer(
    'docstore',
    built('docstore'),
    {
      ...env,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000000000',
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      WEBHOOK_CONCURRENCY: concurrency,
      WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: inFlight,
      ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    },
    logFd,
  );
  const client = async (webhook: boolean) => {
    const clientId = randomUUID();
    const token = await docstoreToken(run.pg, clientId);
    if (!webhook) return { clientId, token, secret: '' };
    const res = await fetch(`http://127.0.0.1:${docstore.port}/api/v1/client/${clientId}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ url: receiverUrl, events: ['document.created'] }),
    });
    if (res.status !== 201) throw new Error(`registering the webhook answered ${res.status}: ${await res.text()}`);
    return { clientId, token, secret: ((await res.json()) as { secret: string }).secret };
  };
  // A client per phase, so each phase writes its own documents.
  const docPhase = async (name: string, webhook: boolean, bulk = false, n = CFG.writes) => {
    const { clientId, token, secret } = await client(webhook);
    say(`phase ${name}`);
    await settle(run.pg, TABLES);
    const p = await phase(name, docstore.port, clientId, token, webhook ? receiver : null, bulk, n);
    if (p.sample) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(path.join(ROOT, 'dist/docstore/libs/webhooks/src/webhook-signature.js')).verifyWebhook(secret, p.sample.headers, p.sample.body);
    }
    return p;
  };
  if (CFG.warmup > 0) await docPhase('warm-up', true, false, CFG.warmup);
  const a = await docPhase('A: no webhook', false);
  const b = await docPhase('B: one webhook', true);
  const bBulk = await docPhase(`B-bulk: bulk requests of ${CFG.bulkItems}`, true, true);
  await stopChild(docstore);
  fs.closeSync(logFd);

  say('phase C: bare BullMQ worker');
  const floorEnv = { FLOOR_PREFIX: `${run.redisPrefix}floor`, FLOOR_CONCURRENCY: concurrency, FLOOR_CONNECTIONS: inFlight };
  const [floor] = await startIpcChild('bullmq floor', 'floors/bullmq.ts', { ...floorEnv, FLOOR_TARGET: receiverUrl });
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const perJob = require(path.join(ROOT, 'dist/docstore/libs/webhooks/src/webhook-queue.js')).DELIVERIES_PER_JOB;
  const floorRun = async (count: number, queue: string) => {
    const r = await rpc<{ t0: number; failed: number; firstError: string }>(
      floor,
      { cmd: 'run', kind: 'webhook', count, queue, perJob, template: b.sample!.body },
      CFG.timeoutS * 1000,
    );
    if (r.failed > 0) throw new Error(`floor C: ${r.failed} jobs failed: ${r.firstError}`);
    return (count / (Math.max(...(await arrivals(receiver, count, 'floor C', CFG.timeoutS)).times) - r.t0)) * 1000;
  };
  if (CFG.warmup > 0) await floorRun(CFG.warmup, 'warm-up');
  const c: Phase = { name: 'C: bare BullMQ worker', writesPerS: NaN, writeP99: NaN, endToEnd: await floorRun(CFG.writes, 'run') };
  await stopChild(floor);

  const sql = JSON.stringify(await captureSql(path.dirname(built('docstore'))));
  const floorPhase = async (name: string, deliver: boolean) => {
    const deliverEnv = deliver ? { ...floorEnv, FLOOR_PREFIX: `${run.redisPrefix}fb`, FLOOR_DELIVER_TO: receiverUrl } : {};
    const server = await startServer('bare-nest', path.join(__dirname, 'floors/bare-nest.ts'), {
      ...env,
      BENCH_FLOOR: 'docstore',
      BENCH_SQL: sql,
      ...deliverEnv,
    });
    if (CFG.warmup > 0) await phase(`${name} warm-up`, server.port, randomUUID(), '', deliver ? receiver : null, false, CFG.warmup);
    say(`phase ${name}`);
    await settle(run.pg, TABLES);
    const p = await phase(name, server.port, randomUUID(), '', deliver ? receiver : null);
    await stopChild(server);
    return p;
  };
  const fa = await floorPhase('FA: bare NestJS, no delivery', false);
  const fb = await floorPhase('FB: bare NestJS, a BullMQ job per write', true);

  const ms = (x?: number) => (x === undefined ? '-' : f1(x));
  const rows = [a, b, bBulk, c, fa, fb].map((p) => [
    p.name,
    f0(p.writesPerS),
    ms(p.writeP99),
    p.endToEnd ? f0(p.endToEnd) : '-',
    p.drain ? f0(p.drain) : '-',
    ms(p.deliveryP99),
  ]);
  rows.push(
    ['writes B ÷ A', f2(b.writesPerS / a.writesPerS), '', '', '', ''],
    ['floor FB ÷ FA', f2(fb.writesPerS / fa.writesPerS), '', '', '', ''],
    ['(B ÷ A) ÷ (FB ÷ FA)', f2(b.writesPerS / a.writesPerS / (fb.writesPerS / fa.writesPerS)), '', '', '', ''],
    ['drain B-bulk ÷ C', '', '', '', f2(bBulk.drain! / c.endToEnd!), ''],
  );
  const title = `Webhooks, ${CFG.writes} writes per phase, ${CFG.connections} connections, WEBHOOK_CONCURRENCY ${concurrency}`;
  process.stdout.write(
    report(
      title,
      ['phase', 'writes/s', 'write p99 ms', 'deliveries/s from first write (C: worker start)', 'deliveries/s over arrivals', 'write → delivery p99 ms'],
      rows,
    ),
  );
});
