/**
 * Docstore: the built docstore (every feature on) against the bare NestJS floor and the raw
 * node:http + pg floor, all running the docstore's own SQL on one database, each in its own
 * process, loaded by autocannon from this one. GET and PUT by key at full speed, in rounds
 * that rotate the servers; then bulk create and upsert of BENCH_BULK_ITEMS documents.
 *
 *   node bench/run.js docstore   (BENCH_ROUNDS, BENCH_DURATION, BENCH_CONNECTIONS, ... in bench/README.md)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  bench,
  built,
  cannon,
  cpuMs,
  docstoreToken,
  f1,
  f2,
  f0,
  flag,
  median,
  num,
  percentile,
  productData,
  report,
  say,
  settle,
  startServer,
  stopChild,
  type Child,
  type Load,
  type Request,
  type Run,
} from './lib/harness';
import { captureSql } from './lib/sql';

const CFG = {
  rounds: Math.max(1, num('BENCH_ROUNDS', 3)),
  duration: num('BENCH_DURATION', 10),
  warmup: num('BENCH_WARMUP', 3),
  initialWarmup: num('BENCH_INITIAL_WARMUP', 15),
  connections: num('BENCH_CONNECTIONS', 64),
  docs: Math.max(10, num('BENCH_DOCS', 1000)),
  bulkItems: num('BENCH_BULK_ITEMS', 1000),
  bulkRuns: num('BENCH_BULK_RUNS', 20),
  poolSize: num('DB_POOL_SIZE', 20),
  raw: flag('BENCH_RAW', true),
  only: (process.env.BENCH_ONLY || 'get,put,bulk').split(','),
  // A second docstore with tracing on (OTLP to a sink in this process, 10 % of requests sampled): its CPU per request beside the first's.
  tracing: flag('BENCH_TRACING', false),
};

const TABLES = ['docstore.documents', 'docstore.document_history'];
const keyOf = (i: number) => `sku-${String(i).padStart(5, '0')}`;
type Server = Child & { port: number; headers: Record<string, string> };
type Json = { data?: { price?: number }; version: number };

/** `docs` documents in collection `type`, each with its version-1 history row, as the docstore writes them. */
async function seed(run: Run, clientId: string, type: string): Promise<void> {
  await run.pg.query(
    `WITH w AS (
       INSERT INTO docstore.documents (client_id, environment, context, type, key, data)
       SELECT $1, 'production', 'shop', $2, 'sku-' || lpad(i::text, 5, '0'),
         jsonb_build_object('name', 'Product ' || i, 'price', i, 'sku', 'SKU-' || i, 'stock', i % 50, 'active', i % 3 <> 0,
           'tags', jsonb_build_array('tag' || (i % 7), 'tag' || (i % 11)), 'dimensions', jsonb_build_object('w', i % 30, 'h', i % 40, 'unit', 'cm'))
       FROM generate_series(0, $3::int - 1) AS i
       RETURNING *)
     INSERT INTO docstore.document_history (document_id, client_id, environment, context, type, key, data, version, created_at)
     SELECT id, client_id, environment, context, type, key, data, version, updated_at FROM w`,
    [clientId, type, CFG.docs],
  );
}

/** An OTLP/HTTP endpoint that takes every export and drops it (the traced docstore's collector); returns its base URL. */
async function otlpSink(): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

bench('docstore', 'docstore', async (run) => {
  const clientId = randomUUID();
  const base = `/api/v1/client/${clientId}/production/context/shop/type`;
  const logFd = fs.openSync(path.join(run.tmp, 'docstore.log'), 'a');
  const env = {
    DATABASE_URL: run.dbUrl,
    DB_POOL_SIZE: String(CFG.poolSize),
    REDIS_PREFIX: run.redisPrefix,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_AUTH_PER_MINUTE: '100000000',
    ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  };
  // The docstore migrates the database; the floors' SQL and the data come after.
  const docstore = (await startServer('docstore', built('docstore'), env, logFd)) as Server;
  docstore.headers = { authorization: `Bearer ${await docstoreToken(run.pg, clientId)}` };
  const traced: Server[] = [];
  if (CFG.tracing) {
    const sink = await otlpSink();
    const tracedEnv = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: sink, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
    traced.push(Object.assign((await startServer('docstore-traced', built('docstore'), tracedEnv, logFd)) as Server, { headers: docstore.headers }));
  }
  const floorEnv = { ...env, BENCH_FLOOR: 'docstore', BENCH_SQL: JSON.stringify(await captureSql(path.dirname(built('docstore')))) };
  const servers: Server[] = [docstore, ...traced];
  for (const [name, file] of [['bare-nest', 'floors/bare-nest.ts'], ...(CFG.raw ? [['raw', 'floors/raw.ts']] : [])]) {
    servers.push(Object.assign(await startServer(name, path.join(__dirname, file), floorEnv), { headers: {} }));
  }
  await seed(run, clientId, 'product');
  for (const s of servers) await seed(run, clientId, `put-${s.name}`);

  const putBody = (s: Server, i: number, round: number) =>
    JSON.stringify({ environment: 'production', context: 'shop', type: `put-${s.name}`, key: keyOf(i), data: productData(i, (i + round + 1) % 50) });
  const scenarios: Record<string, (s: Server) => Request[]> = {
    get: () => Array.from({ length: CFG.docs }, (_, i) => ({ path: `${base}/product/${keyOf(i)}` })),
    put: (s) => Array.from({ length: CFG.docs }, (_, i) => ({ method: 'PUT', path: `${base}/put-${s.name}/${keyOf(i)}`, body: putBody(s, i, 0) })),
  };
  const ids = Object.keys(scenarios).filter((id) => CFG.only.includes(id));
  const load = (s: Server, id: string, seconds: number) => cannon(`http://127.0.0.1:${s.port}`, CFG.connections, seconds, s.headers, scenarios[id](s));

  for (const s of servers) {
    // Each server answers each scenario as the docstore does before it is loaded.
    const get = await fetch(`http://127.0.0.1:${s.port}${base}/product/${keyOf(7)}`, { headers: s.headers }).then((r) => r.json() as Promise<Json>);
    const put = await fetch(`http://127.0.0.1:${s.port}${base}/put-${s.name}/${keyOf(3)}`, {
      method: 'PUT',
      headers: { ...s.headers, 'content-type': 'application/json' },
      body: putBody(s, 3, 1),
    }).then((r) => r.json() as Promise<Json>);
    if (get.data?.price !== 7 || !(put.version >= 2)) throw new Error(`${s.name} answered ${JSON.stringify(get)} and ${JSON.stringify(put)}`);
    for (const id of ids) {
      say(`warm-up ${id} → ${s.name} (${CFG.initialWarmup} s)`);
      await load(s, id, CFG.initialWarmup);
    }
  }

  const results = new Map<string, Array<Load & { cpuUs: number }>>();
  for (let round = 0; round < CFG.rounds; round++) {
    for (const [si, id] of ids.entries()) {
      // Rotated, so no server always runs first or right after another's writes.
      for (const s of servers.map((_, i) => servers[(i + si + round) % servers.length])) {
        await settle(run.pg, TABLES);
        if (CFG.warmup > 0) await load(s, id, CFG.warmup);
        const cpu = cpuMs(s.process.pid);
        const r = { ...(await load(s, id, CFG.duration)), cpuUs: 0 };
        // The server's own CPU per answer: unlike req/s, it hardly moves with what else the machine runs.
        r.cpuUs = ((cpuMs(s.process.pid) - cpu) * 1000) / (r.rps * CFG.duration);
        say(`round ${round + 1}/${CFG.rounds} ${id} → ${s.name}: ${f0(r.rps)} req/s, p99 ${f2(r.p99)} ms, ${f0(r.cpuUs)} µs CPU/req, ${r.failed} failed`);
        if (r.failed > 0) throw new Error(`${s.name}: ${r.failed} of the ${id} requests failed`);
        results.set(`${id} ${s.name}`, [...(results.get(`${id} ${s.name}`) ?? []), r]);
      }
    }
  }
  const rows = ids.flatMap((id) =>
    servers.map((s) => {
      const rs = results.get(`${id} ${s.name}`)!;
      // Each round's pair ran back to back, so its ratio shares the machine's state of the moment.
      const ratio = (floor: string, pick: (l: Load) => number) => {
        const other = results.get(`${id} ${floor}`);
        return other ? f2(median(rs.map((r, i) => pick(r) / pick(other[i])))) : '-';
      };
      const [rps, p99] = [(l: Load) => l.rps, (l: Load) => l.p99];
      return [
        id,
        s.name,
        f0(median(rs.map(rps))),
        f2(median(rs.map((r) => r.p50))),
        f2(median(rs.map(p99))),
        f0(median(rs.map((r) => r.cpuUs))),
        ratio('bare-nest', rps),
        ratio('bare-nest', p99),
        ratio('raw', rps),
        ratio('raw', p99),
        ...(CFG.tracing ? [ratio('docstore', (l) => (l as Load & { cpuUs: number }).cpuUs)] : []),
      ];
    }),
  );
  const title = `Docstore, ${CFG.rounds} rounds of ${CFG.duration} s, ${CFG.connections} connections, medians`;
  process.stdout.write(
    report(
      title,
      [
        'scenario',
        'server',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU µs/req',
        'req/s ÷ bare-nest',
        'p99 ÷ bare-nest',
        'req/s ÷ raw',
        'p99 ÷ raw',
        ...(CFG.tracing ? ['CPU ÷ docstore'] : []),
      ],
      rows,
    ),
  );

  if (CFG.only.includes('bulk') && CFG.bulkRuns > 0) {
    const bulkRows: string[][] = [];
    const bulkBody = (round: number) =>
      JSON.stringify({
        documents: Array.from({ length: CFG.bulkItems }, (_, i) => ({ key: `item-${String(i).padStart(5, '0')}`, data: productData(i, (i + round) % 50) })),
      });
    const bulk = async (s: Server, type: string, body: string) => {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${s.port}${base}/${type}/bulk`, {
        method: 'POST',
        headers: { ...s.headers, 'content-type': 'application/json' },
        body,
      });
      const rows = (await res.json()) as unknown[];
      if (res.status !== 200 || rows.length !== CFG.bulkItems) throw new Error(`${s.name}: bulk answered ${res.status}`);
      return performance.now() - started;
    };
    for (const s of servers) {
      say(`bulk ${CFG.bulkItems} items × ${CFG.bulkRuns} → ${s.name}`);
      for (let w = 0; w < 2; w++) await bulk(s, `bulk-${s.name}`, bulkBody(w));
      const create: number[] = [];
      const upsert: number[] = [];
      for (let r = 0; r < CFG.bulkRuns; r++) {
        const [fresh, again] = [bulkBody(r), bulkBody(r + 2)];
        create.push(await bulk(s, `bulk-${s.name}-${r}`, fresh));
        upsert.push(await bulk(s, `bulk-${s.name}`, again));
      }
      for (const [what, ms] of [
        ['create', create],
        ['upsert', upsert],
      ] as const) {
        const sorted = [...ms].sort((a, b) => a - b);
        bulkRows.push([`bulk ${what}`, s.name, f1(ms.reduce((a, b) => a + b, 0) / ms.length), f1(percentile(sorted, 50)), f1(percentile(sorted, 99))]);
      }
    }
    process.stdout.write(
      report(`Docstore bulk of ${CFG.bulkItems}, ${CFG.bulkRuns} sequential requests`, ['scenario', 'server', 'mean ms', 'p50 ms', 'p99 ms'], bulkRows),
    );
  }
  await Promise.all(servers.map(stopChild));
  fs.closeSync(logFd);
});
