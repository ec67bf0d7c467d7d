/**
 * Sales ingestion benchmark (issue 11 "Speed"): one generated Sale file of BENCH_INGEST_SIZE
 * (1 GB) as CSV, and the same rows as JSON, measured in one run, round after round:
 *   - the floor: `psql \copy` of the CSV into a table identical to `sales` (same columns, key and indexes);
 *   - the built service (one child process) on the CSV: one streamed POST;
 *   - the service on the JSON: the upload tool (tools/sales-upload.js), which cuts it into parts of at most 1 GB.
 * Each phase starts from an empty table. Reported: rows/s, MB/s, the ratio to the floor's rows/s,
 * and the service's peak RSS during the phase (VmRSS sampled every 100 ms). Medians over the rounds; the
 * ratio is taken per round against that round's floor.
 *
 *   node bench/run.js ingest   (BENCH_INGEST_SIZE=1GB BENCH_ROUNDS=3 BENCH_INGEST_DIR=/tmp/bench-ingest)
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';
import { DEPLOYED_NODE_OPTIONS, dropDatabase, f0, f1, f2, flag, freePort, num, recreateDatabase, ROOT, say, spawnNode, stopChild, table, waitHttpReady, type Child } from './lib/harness';

const CFG = {
  adminUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  dbName: process.env.BENCH_INGEST_DB || 'bench_ingest',
  redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
  size: process.env.BENCH_INGEST_SIZE || '1GB',
  rounds: Math.max(1, num('BENCH_ROUNDS', 3)),
  dir: process.env.BENCH_INGEST_DIR || path.join(os.tmpdir(), 'bench-ingest'),
  build: flag('BENCH_BUILD', true),
  keepDb: flag('BENCH_KEEP_DB', false),
  json: process.env.BENCH_JSON || '',
};

const DIST_MAIN = path.join(ROOT, 'dist/ingest-push/apps/ingest-push/src/main.js');
const COLUMNS =
  'order_id, order_date, order_status, order_total, order_total_quantity, order_total_weight, order_discount, product_id, product_name, product_quantity, product_price, product_brand, product_category, product_subcategory, store_id, store_name, store_city, store_state, shipping_price, delivery_city, delivery_state, payment_methods, vendedor_name, client_id, customer_name, customer_cpf_cnpj, customer_city, customer_state, customer_phone, customer_email, customer_birth, customer_gender';

interface Phase {
  name: string;
  rows: number;
  bytes: number;
  seconds: number;
  peakRssMb: number | null;
}

/** A generated file, reused when it is already there with the rows asked for. */
async function ensureFile(file: string, args: string[]): Promise<{ rows: number; bytes: number }> {
  const meta = `${file}.meta.json`;
  if (fs.existsSync(file) && fs.existsSync(meta)) {
    const saved = JSON.parse(fs.readFileSync(meta, 'utf8')) as { args: string[]; rows: number; bytes: number };
    if (JSON.stringify(saved.args) === JSON.stringify(args) && fs.statSync(file).size === saved.bytes) return saved;
  }
  say(`generating ${path.basename(file)} (${args.join(' ')})`);
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/sales-file.js'), ...args, '--out', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let report = '';
  child.stderr.on('data', (c: Buffer) => (report += c.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  const match = /^(\d+) rows, (\d+) bytes/.exec(report);
  if (code !== 0 || !match) throw new Error(`generating ${file} failed: ${report}`);
  const made = { args, rows: Number(match[1]), bytes: Number(match[2]) };
  fs.writeFileSync(meta, JSON.stringify(made));
  return made;
}

/** Peak resident set of `pid` while `work` runs, sampled every 100 ms from /proc. */
async function withPeakRss<T>(pid: number | undefined, work: () => Promise<T>): Promise<[T, number | null]> {
  let peak = 0;
  const sample = () => {
    try {
      const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (kb) peak = Math.max(peak, Number(kb[1]));
    } catch {
      // not on Linux, or the process is gone
    }
  };
  sample();
  const timer = setInterval(sample, 100);
  try {
    const result = await work();
    sample();
    return [result, peak > 0 ? peak / 1024 : null];
  } finally {
    clearInterval(timer);
  }
}

/** One streamed POST of the whole file, with its Content-Length; resolves with the service's summary. */
function postFile(port: number, key: string, file: string, type: string): Promise<{ received: number; inserted: number; rejected: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/DataInserterSales/api/sales', headers: { apiKey: key, 'Content-Type': type, 'Content-Length': fs.statSync(file).size } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(body)) : reject(new Error(`POST answered ${res.statusCode}: ${body.slice(0, 300)}`))));
      },
    );
    req.on('error', reject);
    fs.createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(req);
  });
}

/** The upload tool, as users run it; resolves with its total line. */
async function uploadTool(port: number, key: string, file: string): Promise<{ received: number; inserted: number; rejected: number }> {
  const state = `${file}.bench-state.json`;
  fs.rmSync(state, { force: true });
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/sales-upload.js'), '--file', file, '--url', `http://127.0.0.1:${port}`, '--api-key', key, '--state', state], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
  const [code] = (await once(child, 'exit')) as [number];
  fs.rmSync(state, { force: true });
  if (code !== 0) throw new Error(`the upload tool failed: ${err}`);
  const total = out.trim().split('\n').map((l) => JSON.parse(l) as { total?: { received: number; inserted: number; rejected: number } }).find((l) => l.total);
  return total!.total!;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, (performance.now() - started) / 1000];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Medians over the rounds so far, as a Markdown table. */
function report(rounds: Phase[][]): string {
  const names = rounds[0].map((p) => p.name);
  const rows = names.map((name, i) => {
    const runs = rounds.map((ph) => ph[i]);
    const rate = median(runs.map((p) => p.rows / p.seconds));
    const mbs = median(runs.map((p) => p.bytes / 1e6 / p.seconds));
    // Each round against its own floor: on a shared machine the floor moves as much as the service.
    const ratios = rounds.map((ph) => ph[i].rows / ph[i].seconds / (ph[0].rows / ph[0].seconds));
    const rss = runs.map((p) => p.peakRssMb).filter((v): v is number => v !== null);
    const spread = ratios.length > 1 ? ` (${f2(Math.min(...ratios))}–${f2(Math.max(...ratios))})` : '';
    return [name, String(runs[0].rows), f1(runs[0].bytes / 1e6), f1(median(runs.map((p) => p.seconds))), f0(rate), f1(mbs), f2(median(ratios)) + spread, rss.length ? f0(Math.max(...rss)) : '—'];
  });
  return table(['phase', 'rows', 'MB', 's (median)', 'rows/s (median)', 'MB/s (median)', 'x psql \\copy, same round (median, range)', 'peak RSS MB (max)'], rows);
}

async function main(): Promise<void> {
  fs.mkdirSync(CFG.dir, { recursive: true });
  if (CFG.build) {
    say('building ingest-push');
    const build = spawnSync('npx', ['nx', 'build', 'ingest-push', '--output-style=static'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    if (build.status !== 0) throw new Error('building ingest-push failed');
  }
  const csvFile = path.join(CFG.dir, 'sales.csv');
  const csv = await ensureFile(csvFile, ['--format', 'csv', '--size', CFG.size, '--seed', '11']);
  const jsonFile = path.join(CFG.dir, 'sales.json');
  const json = await ensureFile(jsonFile, ['--format', 'json', '--rows', String(csv.rows), '--seed', '11']);
  say(`CSV ${csv.rows} rows, ${f1(csv.bytes / 1e6)} MB; JSON ${json.rows} rows, ${f1(json.bytes / 1e6)} MB`);

  const dbUrl = await recreateDatabase(CFG.adminUrl, CFG.dbName);
  const port = await freePort();
  let service: Child | undefined;
  const db = new Client({ connectionString: dbUrl });
  try {
    service = spawnNode({
      name: 'ingest-push',
      args: [DIST_MAIN],
      // NODE_OPTIONS as k8s/base/config.yaml and docker/compose.yml run it (the V8 heap bound), unless given.
      env: { NODE_OPTIONS: DEPLOYED_NODE_OPTIONS, ...process.env, DATABASE_URL: dbUrl, REDIS_URL: CFG.redisUrl, REDIS_PREFIX: `bench-ingest:${process.pid}:`, PORT: String(port), LOG_LEVEL: 'warn' },
    });
    await waitHttpReady(service, port, '/health');
    // As the image mints one: `main.js apikey`.
    const key = spawnSync(process.execPath, [DIST_MAIN, 'apikey', '--name', 'bench'], { env: { ...process.env, DATABASE_URL: dbUrl }, encoding: 'utf8' }).stdout.trim();
    await db.connect();
    // The floor's table: `sales` exactly (columns, key, indexes), owned by one account.
    await db.query(`CREATE TABLE public.sales_floor (LIKE ingest_push.sales INCLUDING ALL)`);
    await db.query(`ALTER TABLE public.sales_floor ALTER account_id SET DEFAULT gen_random_uuid(), ALTER ingestion_id SET DEFAULT gen_random_uuid()`);

    const rounds: Phase[][] = [];
    for (let r = 1; r <= CFG.rounds; r++) {
      const phases: Phase[] = [];
      await db.query('TRUNCATE public.sales_floor');
      await db.query('CHECKPOINT');
      const [, copySeconds] = await timed(async () => {
        const copy = spawnSync('psql', [dbUrl, '-v', 'ON_ERROR_STOP=1', '-c', `\\copy public.sales_floor (${COLUMNS}) FROM '${csvFile}' WITH (FORMAT csv, HEADER true, DELIMITER ';')`], { encoding: 'utf8' });
        if (copy.status !== 0) throw new Error(`psql \\copy failed: ${copy.stderr}`);
      });
      phases.push({ name: 'psql \\copy (CSV)', rows: csv.rows, bytes: csv.bytes, seconds: copySeconds, peakRssMb: null });
      say(`round ${r}: psql \\copy ${f1(copySeconds)} s`);

      await db.query('TRUNCATE ingest_push.sales');
      await db.query('CHECKPOINT');
      const [[csvSummary, csvSeconds], csvRss] = await withPeakRss(service.process.pid, () => timed(() => postFile(port, key, csvFile, 'application/csv')));
      if (csvSummary.inserted !== csv.rows) throw new Error(`the service stored ${csvSummary.inserted} of ${csv.rows} CSV rows`);
      phases.push({ name: 'service, CSV', rows: csv.rows, bytes: csv.bytes, seconds: csvSeconds, peakRssMb: csvRss });
      say(`round ${r}: service CSV ${f1(csvSeconds)} s, peak RSS ${f0(csvRss ?? 0)} MB`);

      await db.query('TRUNCATE ingest_push.sales');
      await db.query('CHECKPOINT');
      const [[jsonSummary, jsonSeconds], jsonRss] = await withPeakRss(service.process.pid, () =>
        timed(() => (json.bytes <= 1024 ** 3 ? postFile(port, key, jsonFile, 'application/json') : uploadTool(port, key, jsonFile))),
      );
      if (jsonSummary.inserted !== json.rows) throw new Error(`the service stored ${jsonSummary.inserted} of ${json.rows} JSON rows`);
      phases.push({ name: json.bytes <= 1024 ** 3 ? 'service, JSON' : 'service, JSON (upload tool, 1 GB parts)', rows: json.rows, bytes: json.bytes, seconds: jsonSeconds, peakRssMb: jsonRss });
      say(`round ${r}: service JSON ${f1(jsonSeconds)} s, peak RSS ${f0(jsonRss ?? 0)} MB`);
      rounds.push(phases);
      // After every round, so a long run that has to stop early still leaves its numbers.
      process.stdout.write(`\n${report(rounds)}\n\n${rounds.length} of ${CFG.rounds} rounds, medians; ${os.cpus().length} CPUs, node ${process.version}.\n`);
      if (CFG.json) fs.writeFileSync(CFG.json, JSON.stringify({ rounds }, null, 2));
    }

  } finally {
    await db.end().catch(() => undefined);
    if (service) await stopChild(service);
    if (!CFG.keepDb) await dropDatabase(CFG.adminUrl, CFG.dbName);
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
