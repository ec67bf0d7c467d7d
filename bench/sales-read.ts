/**
 * Reading sales: BENCH_SALES_LINES sale lines of one account (10 million by default), generated in SQL straight into
 * `ingest_push.sales` (generate_series: a year of orders of 3 lines, 50 stores, 5,000 products, 1 million customers),
 * then the built ingest-push answers, one request at a time, BENCH_READ_RUNS of each:
 *   - a 90-day summary by day;
 *   - the top 100 products of a month;
 *   - a filtered page (one store, one month, 100 lines), the store varying;
 *   - a customer's lines (GET …/customers/{cpf_cnpj}), the customer varying.
 * Before the requests, every day is marked dirty as an upload marks it, and the service's refresher rebuilds the
 * summary rollups (the time it took is reported).
 * Reported: p50 and p95 per request against the goals of issue 38.
 *
 *   node bench/run.js sales-read   (BENCH_SALES_LINES, BENCH_READ_RUNS)
 */
import { bench, built, f0, f1, mint, num, percentile, report, say, startServer } from './lib/harness';
import { rollupsCaughtUp } from './lib/rollups';

const CFG = {
  lines: Math.max(3, num('BENCH_SALES_LINES', 10_000_000)),
  runs: Math.max(1, num('BENCH_READ_RUNS', 50)),
};
const BATCH = 1_000_000;
const PATH = '/DataInserterSales/api/sales';

/** Lines [first, last) of the data set: line g belongs to order g/3, dated back from 2026-12-01 over a year. */
const GENERATE = `
  INSERT INTO ingest_push.sales (account_id, ingestion_id, order_id, product_id, order_date, order_status, order_total, order_total_quantity,
    order_discount, product_name, product_quantity, product_price, product_brand, product_category, store_id, store_name, store_state,
    payment_methods, customer_name, customer_cpf_cnpj, customer_phone, customer_email)
  SELECT $1, $2, 'O-' || o, 'P-' || p, timestamptz '2026-12-01' - (o::float8 / $5 * 365) * interval '1 day', CASE WHEN o % 10 = 0 THEN 'cancelled' ELSE 'paid' END,
    100.5, 3, (o % 7)::float8, 'Product ' || p, 1 + g % 5, ((g * 31) % 50000) / 100.0 + 1, 'B-' || (p % 100), 'C-' || (p % 20), 'S-' || (o % 50),
    'Store ' || (o % 50), (ARRAY['SP','RJ','MG','RS','PR','BA','PE','CE','SC','GO'])[1 + o % 10], (ARRAY['pix','card','boleto','pix;card','cash'])[1 + o % 5],
    'Customer ' || c, lpad(c::text, 11, '0'), '+55 11 9' || lpad(c::text, 8, '0'), 'c' || c || '@example.com'
  FROM (SELECT g, g / 3 AS o, (g * 7919) % 5000 AS p, ((g / 3) * 7) % 1000000 AS c FROM generate_series($3::bigint, $4::bigint - 1) AS g) s`;

bench('sales-read', 'ingest-push', async (run) => {
  const service = await startServer('ingest-push', built('ingest-push'), { DATABASE_URL: run.dbUrl, REDIS_PREFIX: run.redisPrefix, LOG_LEVEL: 'warn' });
  const key = mint('ingest-push', ['apikey', '--name', 'bench', '--account', 'bench'], { DATABASE_URL: run.dbUrl });
  const account = (await run.pg.query<{ id: string }>(`SELECT id FROM ingest_push.accounts WHERE name = 'bench'`)).rows[0].id;
  const ingestion = (
    await run.pg.query<{ id: string }>(
      `INSERT INTO ingest_push.sales_ingestions (account_id, api_key_id, format, status) SELECT $1, id, 'csv', 'completed' FROM ingest_push.sales_api_keys LIMIT 1 RETURNING id`,
      [account],
    )
  ).rows[0].id;
  const orders = Math.ceil(CFG.lines / 3);
  let started = performance.now();
  for (let first = 0; first < CFG.lines; first += BATCH) {
    await run.pg.query(GENERATE, [account, ingestion, first, Math.min(CFG.lines, first + BATCH), orders]);
    say(`generated ${Math.min(CFG.lines, first + BATCH)} of ${CFG.lines} lines (${f0((performance.now() - started) / 1000)} s)`);
  }
  started = performance.now();
  await run.pg.query('VACUUM (ANALYZE) ingest_push.sales');
  say(`VACUUM (ANALYZE) ${f0((performance.now() - started) / 1000)} s`);
  // The days an upload of these lines would have marked dirty; the service's refresher rebuilds their rollups.
  started = performance.now();
  await run.pg.query(
    `INSERT INTO ingest_push.sales_rollup_dirty_days (account_id, day) SELECT DISTINCT $1::uuid, (order_date AT TIME ZONE 'UTC')::date FROM ingest_push.sales WHERE account_id = $1`,
    [account],
  );
  await rollupsCaughtUp(run.pg);
  const rollupSeconds = (performance.now() - started) / 1000;
  say(`rollups rebuilt in ${f0(rollupSeconds)} s`);
  await run.pg.query('VACUUM (ANALYZE) ingest_push.sales_daily_rollups');

  const get = async (query: string): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`http://127.0.0.1:${service.port}${PATH}${query}`, { headers: { apiKey: key } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET ${query} answered ${res.status}: ${body.slice(0, 300)}`);
    return performance.now() - t0;
  };
  const scenarios: Array<{ name: string; goal: number; query: (i: number) => string }> = [
    { name: '90-day summary by day', goal: 100, query: () => '/summary?group_by=day&from=2026-09-02&to=2026-12-01' },
    { name: 'top 100 products of a month', goal: 100, query: () => '/summary?group_by=product&from=2026-11-01&to=2026-12-01&limit=100' },
    { name: 'filtered page (store, month, 100 lines)', goal: 30, query: (i) => `?store=S-${i % 50}&from=2026-06-01&to=2026-07-01&limit=100` },
    { name: "a customer's data", goal: 30, query: (i) => `/customers/${String((i * 7919 * 7) % 1000000).padStart(11, '0')}` },
  ];
  const rows: string[][] = [];
  for (const s of scenarios) {
    await get(s.query(0));
    const times: number[] = [];
    for (let i = 0; i < CFG.runs; i++) times.push(await get(s.query(i + 1)));
    times.sort((a, b) => a - b);
    say(`${s.name}: p50 ${f1(percentile(times, 50))} ms, p95 ${f1(percentile(times, 95))} ms`);
    rows.push([s.name, f1(percentile(times, 50)), f1(percentile(times, 95)), `< ${s.goal}`]);
  }
  process.stdout.write(
    report(`Sales reads, ${CFG.lines} lines in one account, ${CFG.runs} requests each`, ['request', 'p50 ms', 'p95 ms', 'goal p95 ms'], rows),
  );
});
