/**
 * Sales ingestion: one generated Sale file of BENCH_INGEST_SIZE as CSV, and the same rows as
 * JSON, stored by the built ingest-push, against two `psql \copy` floors of the CSV:
 *   - same table: a table made like `ingest_push.sales` (columns, primary key, the three
 *     indexes) whose account_id and ingestion_id default to one value, as one upload writes;
 *   - heap: the same columns and defaults with no index, PostgreSQL's physical limit.
 * Every phase starts from an empty table. Reported per phase: seconds, rows/s, each round's
 * ratio to that round's floors, and the service's peak RSS (medians over the rounds).
 *
 *   node bench/run.js ingest   (BENCH_INGEST_SIZE, BENCH_ROUNDS, BENCH_INGEST_DIR)
 */
import { randomUUID } from 'node:crypto';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { bench, built, f0, mint, f1, f2, median, num, report, ROOT, rssMb, say, startServer } from './lib/harness';
import { rollupsCaughtUp } from './lib/rollups';

const CFG = {
  size: process.env.BENCH_INGEST_SIZE || '1GB',
  rounds: Math.max(1, num('BENCH_ROUNDS', 3)),
  dir: process.env.BENCH_INGEST_DIR || path.join(os.tmpdir(), 'bench-ingest'),
};
const COLUMNS =
  'order_id, order_date, order_status, order_total, order_total_quantity, order_total_weight, order_discount, product_id, product_name, product_quantity, ' +
  'product_price, product_brand, product_category, product_subcategory, store_id, store_name, store_city, store_state, shipping_price, delivery_city, ' +
  'delivery_state, payment_methods, vendedor_name, client_id, customer_name, customer_cpf_cnpj, customer_city, customer_state, customer_phone, ' +
  'customer_email, customer_birth, customer_gender';

type Summary = { inserted: number };

/** A generated file (tools/sales-file.js), reused while it is there with the same arguments. */
async function ensureFile(file: string, args: string[]): Promise<{ rows: number; bytes: number }> {
  const meta = `${file}.meta.json`;
  if (fs.existsSync(file) && fs.existsSync(meta)) {
    const saved = JSON.parse(fs.readFileSync(meta, 'utf8'));
    if (JSON.stringify(saved.args) === JSON.stringify(args) && fs.statSync(file).size === saved.bytes) return saved;
  }
  say(`generating ${path.basename(file)} (${args.join(' ')})`);
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/run-tool.js'), 'sales-upload', 'generate', ...args, '--out', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let out = '';
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = await once(child, 'exit');
  const match = /^(\d+) rows, (\d+) bytes/.exec(out);
  if (code !== 0 || !match) throw new Error(`generating ${file} failed: ${out}`);
  const made = { args, rows: Number(match[1]), bytes: Number(match[2]) };
  fs.writeFileSync(meta, JSON.stringify(made));
  return made;
}

/** One streamed POST of the whole file; resolves with the service's summary (after the merge committed). */
function postFile(port: number, key: string, file: string, type: string): Promise<Summary> {
  return new Promise((resolve, reject) => {
    const headers = { apiKey: key, 'Content-Type': type, 'Content-Length': fs.statSync(file).size };
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/DataInserterSales/api/sales', headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => (res.statusCode === 201 ? resolve(JSON.parse(body)) : reject(new Error(`POST answered ${res.statusCode}: ${body.slice(0, 300)}`))));
    });
    req.on('error', reject);
    fs.createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(req);
  });
}

/** The upload tool as users run it (its default part size); resolves with its total line. */
async function uploadTool(port: number, key: string, file: string): Promise<Summary> {
  const state = path.join(path.dirname(file), 'bench-upload-state.json');
  fs.rmSync(state, { force: true });
  const args = [
    path.join(ROOT, 'tools/run-tool.js'),
    'sales-upload',
    'upload',
    '--file',
    file,
    '--url',
    `http://127.0.0.1:${port}`,
    '--api-key',
    key,
    '--state',
    state,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const [code] = await once(child, 'exit');
  fs.rmSync(state, { force: true });
  if (code !== 0) throw new Error(`the upload tool exited with ${code}`);
  return out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .find((l) => l.total).total;
}

/** Seconds `work` takes, and the peak RSS of `pid` meanwhile (sampled every 100 ms). */
async function timed(pid: number | undefined, work: () => Promise<unknown>): Promise<{ seconds: number; rss: number }> {
  let rss = 0;
  const sample = () => (rss = Math.max(rss, rssMb(pid) ?? 0));
  const timer = setInterval(sample, 100);
  const started = performance.now();
  try {
    await work();
    sample();
    return { seconds: (performance.now() - started) / 1000, rss };
  } finally {
    clearInterval(timer);
  }
}

bench('ingest', 'ingest-push', async (run) => {
  fs.mkdirSync(CFG.dir, { recursive: true });
  const csvFile = path.join(CFG.dir, 'sales.csv');
  const csv = await ensureFile(csvFile, ['--format', 'csv', '--size', CFG.size, '--seed', '11']);
  const jsonFile = path.join(CFG.dir, 'sales.json');
  const json = await ensureFile(jsonFile, ['--format', 'json', '--rows', String(csv.rows), '--seed', '11']);
  say(`CSV ${csv.rows} rows, ${f1(csv.bytes / 1e6)} MB; JSON ${f1(json.bytes / 1e6)} MB`);
  const service = await startServer('ingest-push', built('ingest-push'), { DATABASE_URL: run.dbUrl, REDIS_PREFIX: run.redisPrefix, LOG_LEVEL: 'warn' });
  const key = mint('ingest-push', ['apikey', '--name', 'bench'], { DATABASE_URL: run.dbUrl });
  for (const [table, like] of [
    ['sales_floor', 'INCLUDING ALL'],
    ['sales_heap', 'INCLUDING DEFAULTS'],
  ]) {
    await run.pg.query(`CREATE TABLE public.${table} (LIKE ingest_push.sales ${like})`);
    await run.pg.query(`ALTER TABLE public.${table} ALTER account_id SET DEFAULT '${randomUUID()}', ALTER ingestion_id SET DEFAULT '${randomUUID()}'`);
  }
  const copy = (table: string) => async () => {
    const sql = `\\copy public.${table} (${COLUMNS}) FROM '${csvFile}' WITH (FORMAT csv, HEADER true, DELIMITER ';')`;
    await promisify(execFile)('psql', [run.dbUrl, '-v', 'ON_ERROR_STOP=1', '-c', sql]).catch((error: { stderr?: string }) => {
      throw new Error(`psql \\copy failed: ${error.stderr}`);
    });
  };
  const store = (file: string, type: string, rows: number, bytes: number) => async () => {
    const summary = bytes <= 1024 ** 3 ? await postFile(service.port, key, file, type) : await uploadTool(service.port, key, file);
    if (summary.inserted !== rows) throw new Error(`the service stored ${summary.inserted} of ${rows} rows`);
  };
  const phases = [
    { name: 'psql \\copy, same table, one account', table: 'public.sales_floor', work: copy('sales_floor'), bytes: csv.bytes, pid: undefined },
    { name: 'psql \\copy, heap only (no index)', table: 'public.sales_heap', work: copy('sales_heap'), bytes: csv.bytes, pid: undefined },
    {
      name: 'service, CSV (one POST)',
      table: 'ingest_push.sales',
      work: store(csvFile, 'application/csv', csv.rows, csv.bytes),
      bytes: csv.bytes,
      pid: service.process.pid,
    },
    {
      name: `service, JSON (${json.bytes <= 1024 ** 3 ? 'one POST' : 'upload tool'})`,
      table: 'ingest_push.sales',
      work: store(jsonFile, 'application/json', csv.rows, json.bytes),
      bytes: json.bytes,
      pid: service.process.pid,
    },
  ];
  const rounds: Array<Array<{ seconds: number; rss: number; rollups?: number }>> = [];
  for (let r = 1; r <= CFG.rounds; r++) {
    const results = [];
    for (const p of phases) {
      await run.pg.query(`TRUNCATE ${p.table}`);
      await run.pg.query('CHECKPOINT');
      const result: { seconds: number; rss: number; rollups?: number } = await timed(p.pid, p.work);
      // The rollups the upload dirtied are rebuilt after it answered: timed apart, and before the next phase starts.
      if (p.pid) result.rollups = await rollupsCaughtUp(run.pg);
      say(`round ${r}: ${p.name} ${f1(result.seconds)} s${p.pid ? `, rollups rebuilt ${f1(result.rollups!)} s after` : ''}`);
      results.push(result);
    }
    rounds.push(results);
  }
  const rows = phases.map((p, i) => {
    const of = (j: number) => f2(median(rounds.map((round) => round[j].seconds / round[i].seconds)));
    return [
      p.name,
      f1(p.bytes / 1e6),
      f1(median(rounds.map((round) => round[i].seconds))),
      f0(median(rounds.map((round) => csv.rows / round[i].seconds))),
      of(0),
      of(1),
      p.pid ? f0(Math.max(...rounds.map((round) => round[i].rss))) : '-',
      p.pid ? f1(median(rounds.map((round) => round[i].rollups!))) : '-',
    ];
  });
  const title = `Ingestion, ${csv.rows} rows, ${CFG.rounds} rounds, medians`;
  process.stdout.write(report(title, ['phase', 'MB', 's', 'rows/s', '× same-table \\copy', '× heap \\copy', 'peak RSS MB', 'rollups rebuilt, s after'], rows));
});
