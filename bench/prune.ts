/**
 * Retention pruning: how fast the database lib's Pruner deletes expired rows, and what it does to writes
 * on the same table meanwhile. A scratch table shaped like an append-only log (bigserial id, timestamptz
 * with an index, a small payload) holds BENCH_PRUNE_ROWS expired rows beside a quarter as many live ones;
 * BENCH_PRUNE_WRITERS connections insert and update live rows throughout. Per round: writes alone for
 * BENCH_PRUNE_SECONDS, then writes while the Pruner (the built one, dist/docstore, PRUNE_BATCH_ROWS) empties
 * the expired rows. Reported per round: rows/s of the prune, writes' p50/p99 without and during it.
 *
 *   node bench/run.js prune      (after `npx nx build docstore`, or BENCH_BUILD=1)
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { dropDatabase, f0, f2, flag, num, percentile, recreateDatabase, ROOT, say, table } from './lib/harness';

const CFG = {
  adminUrl: process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  rows: num('BENCH_PRUNE_ROWS', 200_000),
  writers: num('BENCH_PRUNE_WRITERS', 8),
  seconds: num('BENCH_PRUNE_SECONDS', 10),
  batch: num('PRUNE_BATCH_ROWS', 1000),
  rounds: Math.max(1, num('BENCH_ROUNDS', 3)),
  build: flag('BENCH_BUILD', true),
};
const DIST_LIBS = path.join(ROOT, 'dist/docstore/libs');

interface Writes {
  latencies: number[];
  stop: () => Promise<void>;
}

/** Writers that insert a live row and update another, again and again, until stopped; each statement's latency in ms. */
function startWriting(dataSource: DataSource, live: number): Writes {
  const latencies: number[] = [];
  let running = true;
  const timed = async (text: string, values: unknown[]) => {
    const start = performance.now();
    await dataSource.query(text, values);
    latencies.push(performance.now() - start);
  };
  const writer = async () => {
    while (running) {
      await timed(`INSERT INTO events (at, payload) VALUES (now(), $1)`, ['new']);
      await timed(`UPDATE events SET payload = $2 WHERE id = $1`, [1 + Math.floor(Math.random() * live), 'touched']);
    }
  };
  const all = Promise.all(Array.from({ length: CFG.writers }, writer));
  return {
    latencies,
    stop: async () => {
      running = false;
      await all;
    },
  };
}

async function main(): Promise<void> {
  if (CFG.build) {
    say('building docstore (for the built Pruner)');
    if (spawnSync('npx', ['nx', 'build', 'docstore', '--output-style=static'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('build failed');
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Sql } = require(path.join(DIST_LIBS, 'database/src/sql.service.js'));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Pruner } = require(path.join(DIST_LIBS, 'database/src/pruner.service.js'));
  const name = `bench_prune_${process.pid}`;
  const url = await recreateDatabase(CFG.adminUrl, name);
  const dataSource = await new DataSource({ type: 'postgres', url, poolSize: CFG.writers + 2 }).initialize();
  const live = Math.ceil(CFG.rows / 4);
  const results: string[][] = [];
  try {
    await dataSource.query(`CREATE TABLE events (id bigserial PRIMARY KEY, at timestamptz NOT NULL, payload text NOT NULL)`);
    await dataSource.query(`CREATE INDEX events_at_idx ON events (at)`);
    for (let round = 1; round <= CFG.rounds; round++) {
      await dataSource.query(`TRUNCATE events RESTART IDENTITY`);
      // Live rows first (ids 1..live, which the writers update), then the expired ones.
      await dataSource.query(`INSERT INTO events (at, payload) SELECT now(), repeat('x', 200) FROM generate_series(1, $1)`, [live]);
      await dataSource.query(`INSERT INTO events (at, payload) SELECT now() - interval '40 days' - make_interval(secs => i), repeat('x', 200) FROM generate_series(1, $1) i`, [CFG.rows]);
      await dataSource.query(`VACUUM ANALYZE events`);

      say(`round ${round}: writes alone for ${CFG.seconds} s`);
      const alone = startWriting(dataSource, live);
      await new Promise((resolve) => setTimeout(resolve, CFG.seconds * 1000));
      await alone.stop();

      say(`round ${round}: writes while pruning ${CFG.rows} rows`);
      const pruner = new Pruner(new Sql(dataSource), { PRUNE_BATCH_ROWS: CFG.batch, PRUNE_INTERVAL_SECONDS: 0 });
      pruner.register({ table: 'events', expired: 'at < cutoff', keepSeconds: () => 30 * 86_400 });
      const during = startWriting(dataSource, live);
      const start = performance.now();
      const deleted: number = await pruner.pruneAll();
      const seconds = (performance.now() - start) / 1000;
      await during.stop();
      if (deleted !== CFG.rows) throw new Error(`the prune deleted ${deleted} rows, not ${CFG.rows}`);
      const [a, d] = [alone.latencies.sort((x, y) => x - y), during.latencies.sort((x, y) => x - y)];
      results.push([
        String(round),
        f0(deleted / seconds),
        f2(seconds),
        `${f2(percentile(a, 50))} / ${f2(percentile(a, 99))}`,
        `${f2(percentile(d, 50))} / ${f2(percentile(d, 99))}`,
        f2(percentile(d, 99) / percentile(a, 99)),
        `${f0(a.length / CFG.seconds)} / ${f0(d.length / seconds)}`,
      ]);
    }
  } finally {
    await dataSource.destroy();
    await dropDatabase(CFG.adminUrl, name);
  }
  process.stdout.write(`\nPrune of ${CFG.rows} expired rows beside ${live} live ones, batches of ${CFG.batch}, ${CFG.writers} writers\n\n`);
  process.stdout.write(
    table(['round', 'pruned rows/s', 'prune s', 'writes p50 / p99 alone (ms)', 'writes p50 / p99 during (ms)', 'p99 during ÷ alone', 'writes/s alone / during'], results) + '\n',
  );
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exitCode = 1;
});
