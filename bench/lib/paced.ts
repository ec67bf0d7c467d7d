import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { percentile } from './harness';

export interface PacedRun {
  rate: number;
  p50: number;
  p99: number;
  failed: number;
}

/**
 * An open-loop load at a fixed rate: request i is sent at start + i / rate, whether or not
 * earlier answers are back (autocannon's `overallRate` sends each second's quota as a
 * burst at full speed, which measures queueing, not the cost of one request at that rate).
 * Latency is request sent → body read, in ms.
 */
export async function pacedLoad(url: string, init: { method: string; headers: Record<string, string>; body?: string }, rate: number, seconds: number): Promise<PacedRun> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: 64, keepAliveTimeout: 30_000 });
  const total = Math.round(rate * seconds);
  const latencies: number[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(
      (async () => {
        const sent = performance.now();
        try {
          const res = await pool.request({ path: target.pathname + target.search, method: init.method, headers: init.headers, body: init.body });
          await res.body.text();
          if (res.statusCode >= 300) failed++;
          latencies.push(performance.now() - sent);
        } catch {
          failed++;
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return { rate: total / ((performance.now() - start) / 1000), p50: percentile(sorted, 50), p99: percentile(sorted, 99), failed };
}
