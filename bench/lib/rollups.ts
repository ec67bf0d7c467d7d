/** Seconds until the service's refresher has rebuilt the rollups of every dirty day (polled every 200 ms). */
export async function rollupsCaughtUp(pg: { query: (sql: string) => Promise<{ rows: Array<{ n: number }> }> }): Promise<number> {
  const started = performance.now();
  while ((await pg.query('SELECT count(*)::int AS n FROM ingest_push.sales_rollup_dirty_days')).rows[0].n > 0) await new Promise((r) => setTimeout(r, 200));
  return (performance.now() - started) / 1000;
}
