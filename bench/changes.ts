/**
 * Change feed: N event-stream subscribers on one docstore while writers create documents.
 *   A: creates at full speed (closed loop), no subscriber;  B: the same with N subscribers (headroom ratio B ÷ A);
 *   P: W creates per second (open loop), no subscriber;  C: the same with N subscribers (writers' ratio C ÷ P), and
 *      write answered (committed) → event received (every BENCH_CHANGES_TIMED_EVERY-th subscriber; every one counts its events);
 *   idle memory per subscriber: the docstore's RSS and heap with N idle streams open, minus without;
 *   the docstore's CPU per write in A and in C (its process CPU seconds), which a busy machine distorts less than latencies.
 *
 *   node bench/run.js changes   (BENCH_CHANGES_SUBSCRIBERS, BENCH_CHANGES_RATE, BENCH_CHANGES_SECONDS in bench/README.md)
 */
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as net from 'node:net';
import { Pool, request } from 'undici';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import {
  bench,
  built,
  closedLoop,
  docstoreToken,
  f0,
  f1,
  f2,
  machineCpuMs,
  num,
  percentile,
  productData,
  report,
  say,
  sleep,
  startServer,
  stopChild,
  wallMs,
  type Run,
} from './lib/harness';

const CFG = {
  subscribers: Math.max(1, num('BENCH_CHANGES_SUBSCRIBERS', 1000)),
  rate: Math.max(1, num('BENCH_CHANGES_RATE', 500)),
  seconds: Math.max(1, num('BENCH_CHANGES_SECONDS', 30)),
  /** Every n-th subscriber is timed. */
  timedEvery: Math.max(1, num('BENCH_CHANGES_TIMED_EVERY', 10)),
  connections: Math.max(1, num('BENCH_CONNECTIONS', 64)),
  poolSize: num('DB_POOL_SIZE', 20),
};

interface Subscriber {
  /** Arrival time of each document key's first event (timed subscribers only). */
  arrivals: Map<string, number>;
  /** Events received. */
  events(): number;
  close(): void;
}

const KEY_FIELD = '"key":"';
const CHANGE_EVENT = Buffer.from('event: change\n');

/**
 * One event stream, over a plain socket (HTTP/1.1 by hand: the answer's head, then its chunked body read as it
 * comes, chunk framing and all: it falls between events, which are what is counted). Every subscriber counts its
 * events in the bytes as they come; a timed one also reads each change's key and when it came (what a latency
 * needs). The subscribers share the cores with the docstore and PostgreSQL, as users' clients would not, so they
 * cost as little as they can: at 500 writes/s, 1,000 subscribers receive 500,000 events a second.
 */
function subscribe(url: URL, token: string, timed: boolean): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const arrivals = new Map<string, number>();
    let events = 0;
    /** The answer's head until it is whole; then null. */
    let head: Buffer | null = Buffer.alloc(0);
    /** The last bytes read, in which an `event: change` line may have begun. */
    let tail: Buffer = Buffer.alloc(0);
    /** A timed subscriber's text after its last whole event. */
    let text = '';
    const subscriber: Subscriber = { arrivals, events: () => events, close: () => socket.destroy() };
    socket.setNoDelay(true);
    socket.once('connect', () =>
      socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${token}\r\n\r\n`),
    );
    // A stream whose answer does not start within 30 s fails the bench rather than stalling it.
    const timer = setTimeout(() => socket.destroy(new Error('subscribing: no answer within 30 s')), 30_000);
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      const now = wallMs();
      if (head !== null) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = head.toString('latin1', 9, 12);
        if (status !== '200') {
          socket.destroy(new Error(`subscribing answered ${status}`));
          return;
        }
        chunk = head.subarray(end + 4);
        head = null;
        clearTimeout(timer);
        resolve(subscriber);
      }
      // One `event: change` line a change (heartbeats are comments); a line may straddle two reads.
      const bytes = tail.length > 0 ? Buffer.concat([tail, chunk]) : chunk;
      for (let at = bytes.indexOf(CHANGE_EVENT); at >= 0; at = bytes.indexOf(CHANGE_EVENT, at + CHANGE_EVENT.length)) events++;
      tail = bytes.subarray(Math.max(0, bytes.length - CHANGE_EVENT.length + 1));
      if (!timed) return;
      // The keys of the complete events (one each: include_docs=false), found in place: a read holds many events.
      text += chunk.toString('latin1');
      const complete = text.lastIndexOf('\n\n');
      if (complete < 0) return;
      for (let at = text.indexOf(KEY_FIELD); at >= 0 && at < complete; at = text.indexOf(KEY_FIELD, at)) {
        const start = at + KEY_FIELD.length;
        at = text.indexOf('"', start);
        const key = text.slice(start, at);
        if (!arrivals.has(key)) arrivals.set(key, now);
      }
      text = text.slice(complete + 2);
    });
  });
}

/** Threads the subscribers run on, apart from the writers: a client's parsing must not delay the writes it times. */
const SUBSCRIBER_THREADS = 2;

interface SubscriberSet {
  /** Events received so far by each subscriber, in order. */
  counts(): Promise<number[]>;
  /** Each timed subscriber's arrival time per key. */
  arrivals(): Promise<Map<string, number>[]>;
  close(): Promise<void>;
}

type Ask = 'counts' | 'arrivals' | 'close';

/** In a subscriber thread: opens its share of the streams, then answers the main thread's asks. */
async function subscriberThread(): Promise<void> {
  const { url, token, first, count } = workerData as { url: string; token: string; first: number; count: number };
  const subscribers: Subscriber[] = [];
  for (let i = first; i < first + count; i++) subscribers.push(await subscribe(new URL(url), token, i % CFG.timedEvery === 0));
  const port = parentPort!;
  port.on('message', (ask: Ask) => {
    if (ask === 'counts') port.postMessage(subscribers.map((sub) => sub.events()));
    else if (ask === 'arrivals') port.postMessage(subscribers.filter((_, i) => (first + i) % CFG.timedEvery === 0).map((sub) => [...sub.arrivals]));
    else {
      for (const sub of subscribers) sub.close();
      port.close();
    }
  });
  port.postMessage('open');
}

/** N subscribers over SUBSCRIBER_THREADS threads, opened one after another within each thread. */
async function subscribeAll(url: string, token: string, n: number): Promise<SubscriberSet> {
  const per = Math.ceil(n / SUBSCRIBER_THREADS);
  const threads: Worker[] = [];
  for (let first = 0; first < n; first += per) {
    const code = `require(${JSON.stringify(path.join(__dirname, 'register.js'))}); require(${JSON.stringify(__filename)});`;
    threads.push(new Worker(code, { eval: true, workerData: { url, token, first, count: Math.min(per, n - first) } }));
  }
  const answer = <T>(thread: Worker, ask?: Ask) =>
    new Promise<T>((resolve, reject) => {
      thread.once('error', reject).once('message', (message: T) => {
        thread.off('error', reject);
        resolve(message);
      });
      if (ask) thread.postMessage(ask);
    });
  await Promise.all(threads.map((thread) => answer(thread)));
  return {
    counts: async () => (await Promise.all(threads.map((thread) => answer<number[]>(thread, 'counts')))).flat(),
    arrivals: async () => (await Promise.all(threads.map((thread) => answer<[string, number][][]>(thread, 'arrivals')))).flat().map((pairs) => new Map(pairs)),
    close: async () => {
      await Promise.all(threads.map((thread) => new Promise((resolve) => thread.once('exit', resolve).postMessage('close'))));
    },
  };
}

/**
 * The docstore's own memory and CPU seconds so far, from its /metrics, each time on a new connection: a kept one
 * can be closed by the server's keep-alive timeout as it is reused, between the phases' reads.
 */
async function usage(port: number): Promise<{ rss: number; heap: number; cpu: number }> {
  const text = await (await request(`http://127.0.0.1:${port}/metrics`, { reset: true })).body.text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: value('process_resident_memory_bytes'), heap: value('nodejs_heap_size_used_bytes'), cpu: value('process_cpu_seconds_total') };
}

// A subscriber thread loads this file too: it runs its share of the streams, and bench() runs on the main thread only.
if (!isMainThread) void subscriberThread();

bench('changes', 'docstore', async (run: Run) => {
  const logFd = fs.openSync(path.join(run.tmp, 'docstore.log'), 'a');
  const cap = String(CFG.subscribers + 10);
  const docstore = await startServer(
    'docstore',
    built('docstore'),
    {
      DATABASE_URL: run.dbUrl,
      DB_POOL_SIZE: String(CFG.poolSize),
      REDIS_PREFIX: run.redisPrefix,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL || 'info',
      RATE_LIMIT_PER_MINUTE: '1000000000',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000000000',
      CHANGES_MAX_STREAMS_PER_CLIENT: cap,
      CHANGES_MAX_STREAMS_PER_TOKEN: cap,
      ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    },
    logFd,
  );
  const origin = `http://127.0.0.1:${docstore.port}`;
  const clientId = randomUUID();
  const token = await docstoreToken(run.pg, clientId);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const docs = `/api/v1/client/${clientId}/production/context/shop/type/product`;
  let serial = 0;
  const create = () => {
    const key = `k${serial++}`;
    return {
      key,
      path: `${docs}/${key}`,
      body: JSON.stringify({ environment: 'production', context: 'shop', type: 'product', key, data: productData(serial) }),
    };
  };
  const fullSpeed = async (name: string) => {
    const requests = Array.from({ length: CFG.seconds * 5000 }, () => ({ method: 'POST' as const, ...create() }));
    say(`phase ${name}`);
    const load = await closedLoop(origin, { connections: CFG.connections, headers, requests, seconds: CFG.seconds, status: 201 });
    if (load.failed > 0) throw new Error(`${name}: ${load.failed} writes failed; first: ${load.firstError}`);
    return load.rps;
  };
  /** BENCH_CHANGES_RATE creates per second (open loop): when each was answered, the rate reached, the answers' p99. */
  const paced = async (name: string) => {
    say(`phase ${name}`);
    const committed = new Map<string, number>();
    const latencies: number[] = [];
    const writers = new Pool(origin, { connections: CFG.connections, keepAliveTimeout: 30_000 });
    const pending: Promise<void>[] = [];
    let failed = 0;
    const cpuBefore = (await usage(docstore.port)).cpu;
    const [machineBefore, benchBefore] = [machineCpuMs(), process.cpuUsage()];
    const start = performance.now();
    for (let i = 0; i < CFG.rate * CFG.seconds; i++) {
      const wait = start + (i * 1000) / CFG.rate - performance.now();
      if (wait > 1) await sleep(wait);
      const write = create();
      const sent = performance.now();
      pending.push(
        writers
          .request({ path: write.path, method: 'POST', headers, body: write.body })
          .then(async (res) => {
            await res.body.text();
            latencies.push(performance.now() - sent);
            if (res.statusCode === 201) committed.set(write.key, wallMs());
            else failed++;
          })
          .catch(() => void failed++),
      );
    }
    await Promise.all(pending);
    const elapsed = performance.now() - start;
    const benchCpu = process.cpuUsage(benchBefore);
    // Cores busy while the writes ran: the whole machine, the bench's process (writers and subscriber threads), the docstore.
    const cores = {
      machine: (machineCpuMs() - machineBefore) / elapsed,
      bench: (benchCpu.user + benchCpu.system) / 1000 / elapsed,
      docstore: (((await usage(docstore.port)).cpu - cpuBefore) * 1000) / elapsed,
    };
    const rate = (committed.size * 1000) / elapsed;
    await writers.close();
    const p99 = percentile(Float64Array.from(latencies).sort(), 99);
    return { committed, failed, rate, p99, cpuBefore, cores };
  };

  const cpuBeforeA = (await usage(docstore.port)).cpu;
  const a = await fullSpeed('A: full speed, no subscriber');
  const cpuA = (await usage(docstore.port)).cpu - cpuBeforeA;
  const p = await paced(`P: ${CFG.rate} writes/s, no subscriber`);
  if (p.failed > 0) throw new Error(`P: ${p.failed} writes failed`);
  const before = await usage(docstore.port);
  say(`opening ${CFG.subscribers} subscribers`);
  const subscribers = await subscribeAll(`${origin}/api/v1/client/${clientId}/changes?since=now&include_docs=false`, token, CFG.subscribers);
  await sleep(3000);
  const idle = await usage(docstore.port);
  const b = await fullSpeed(`B: full speed, ${CFG.subscribers} subscribers`);

  // B's events delivered everywhere (no count moves for a second), so C's are counted alone.
  const counts = async () => (await subscribers.counts()).join();
  for (let last = ''; last !== (await counts()); await sleep(1000)) last = await counts();
  const eventsBeforeC = await subscribers.counts();
  const c = await paced(`C: ${CFG.rate} writes/s, ${CFG.subscribers} subscribers`);
  const { committed, failed } = c;
  const deadline = Date.now() + 30_000;
  const missingNow = async () => (await subscribers.counts()).reduce((sum, events, i) => sum + Math.max(0, committed.size - (events - eventsBeforeC[i])), 0);
  while (Date.now() < deadline && (await missingNow()) > 0) await sleep(200);
  const lags: number[] = [];
  let missing = await missingNow();
  for (const arrivals of await subscribers.arrivals()) {
    for (const [key, at] of committed) {
      const got = arrivals.get(key);
      if (got === undefined) missing++;
      else lags.push(Math.max(0, got - at));
    }
  }
  const cpuC = (await usage(docstore.port)).cpu - c.cpuBefore;
  await subscribers.close();
  await stopChild(docstore);
  fs.closeSync(logFd);

  const sorted = Float64Array.from(lags).sort();
  const kb = (bytes: number) => f1(bytes / CFG.subscribers / 1024);
  process.stdout.write(
    report(
      `change feed: ${CFG.subscribers} subscribers, ${CFG.rate} writes/s, ${CFG.seconds} s phases`,
      ['measure', 'value', 'goal (issue 35)'],
      [
        ['writes/s at full speed, no subscriber (A)', f0(a), ''],
        [`writes/s at full speed, ${CFG.subscribers} subscribers (B)`, f0(b), ''],
        ['B ÷ A (headroom at full speed)', `${(b / a).toFixed(2)}×`, ''],
        [`writes/s reached at ${CFG.rate}/s: no subscriber (P) / ${CFG.subscribers} subscribers (C)`, `${f0(p.rate)} / ${f0(c.rate)}`, ''],
        ['C ÷ P', `${(c.rate / p.rate).toFixed(2)}×`, '≥ 0.9×'],
        ['write answered, p99: P / C', `${f1(p.p99)} / ${f1(c.p99)} ms`, ''],
        [
          `write answered → event received (every ${CFG.timedEvery}th subscriber), p50 / p99`,
          `${f1(percentile(sorted, 50))} / ${f1(percentile(sorted, 99))} ms`,
          'p99 < 250 ms',
        ],
        [
          'docstore CPU per write: A / C (C with its events)',
          `${((cpuA * 1000) / (a * CFG.seconds)).toFixed(2)} / ${((cpuC * 1000) / (CFG.rate * CFG.seconds)).toFixed(2)} ms`,
          '',
        ],
        ['cores busy in C: machine (of 2) / bench process / docstore', `${f2(c.cores.machine)} / ${f2(c.cores.bench)} / ${f2(c.cores.docstore)}`, ''],
        ['paced writes failed', String(failed), '0'],
        ['events missing after 30 s', String(missing), '0'],
        ['idle memory per subscriber: RSS / heap', `${kb(idle.rss - before.rss)} / ${kb(idle.heap - before.heap)} KB`, '< 20 KB'],
      ],
    ),
  );
  if (missing > 0 || failed > 0) process.exitCode = 1;
});
