import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { RequestLatencyHistogram } from './request-latency.histogram';

/** Seconds; from a cached read (≈ 1 ms) to a 1 GB upload. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120, 600];
const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];
/** A scrape never waits longer than this for Redis; the queue's gauges are left out of that scrape instead. */
const QUEUE_COUNT_TIMEOUT_MS = 1000;

/** A counter an app or lib declared through `Metrics.counter`; its series also carry the `service` label. */
export interface MetricCounter<L extends string> {
  /** Adds `count` (default 1) to the series with these labels; a count of 0 adds nothing, not even an empty series. */
  inc(labels: Readonly<Record<L, string>>, count?: number): void;
}

/** A histogram an app or lib declared through `Metrics.histogram`; its series also carry the `service` label. */
export interface MetricHistogram<L extends string> {
  observe(labels: Readonly<Record<L, string>>, value: number): void;
}

/** Sets a gauge's series; called by `Metrics.gauge`'s `collect` on every scrape. */
export type GaugeSetter<L extends string> = (labels: Readonly<Record<L, string>>, value: number) => void;

interface Declared {
  kind: 'counter' | 'histogram' | 'gauge';
  help: string;
  labelNames: readonly string[];
  metric: unknown;
}

/** A queue whose backlog is reported: a BullMQ Queue, or libs/queue's QueueProducer. */
export interface CountableQueue {
  readonly name: string;
  getJobCounts(...states: JobState[]): Promise<Record<string, number>>;
  /** Epoch milliseconds since which the oldest job ready to run has waited (undefined: none waits). */
  oldestWaitingSince?(): Promise<number | undefined>;
}

/**
 * The process's Prometheus metrics, in a registry of its own (so several apps booted in one
 * test process never mix). Request latency by route and status is recorded by
 * libs/server's request middleware (one observation per response); libs/server registers every queue and worker of the app.
 * Apps and libs declare their own counters with `counter()`. `GET /metrics` renders it (libs/server).
 */
@Injectable()
export class Metrics implements OnModuleDestroy {
  readonly registry = new Registry();
  private readonly http: RequestLatencyHistogram;
  private readonly jobs: Counter<'queue' | 'outcome'>;
  private readonly counters = new Map<string, Declared>();
  private readonly queues = new Set<CountableQueue>();

  constructor(service = 'service') {
    this.registry.setDefaultLabels({ service });
    collectDefaultMetrics({ register: this.registry });
    this.http = new RequestLatencyHistogram(this.registry, LATENCY_BUCKETS);
    this.jobs = new Counter({
      name: 'queue_jobs_processed_total',
      help: 'Jobs this process finished, by queue and outcome (completed, failed).',
      labelNames: ['queue', 'outcome'],
      registers: [this.registry],
    });
    const counts = () => this.queueCounts();
    const ages = () => this.queueAges();
    new Gauge({
      name: 'queue_jobs',
      help: 'Jobs in each queue by state, read from Redis at scrape time (waiting is the backlog workers scale on).',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [queue, byState] of await counts()) {
          if (!byState) continue; // Redis did not answer in time: no stale number
          for (const state of JOB_STATES) this.set({ queue, state }, byState[state]);
        }
      },
    });
    new Gauge({
      name: 'queue_oldest_job_age_seconds',
      help: 'Seconds the oldest job ready to run (waiting or prioritized) has waited since it became ready; 0 when none waits.',
      labelNames: ['queue'],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [queue, age] of await ages()) if (age !== undefined) this.set({ queue }, age);
      },
    });
  }

  /** Records one finished request. `route` is the route pattern (never the raw URL, which would explode the label set). */
  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.http.record(method, route, status, seconds);
  }

  /** Reports the queue's job counts by state on every scrape. */
  watchQueue(queue: CountableQueue): void {
    this.queues.add(queue);
  }

  /** Each watched queue's jobs by state; undefined for a queue whose Redis did not answer within a second. */
  async queueCounts(): Promise<Map<string, Record<JobState, number> | undefined>> {
    const entries = await Promise.all(
      [...this.queues].map(async (queue) => {
        const counts = await withTimeout(queue.getJobCounts(...JOB_STATES), QUEUE_COUNT_TIMEOUT_MS);
        const byState = counts && (Object.fromEntries(JOB_STATES.map((state) => [state, counts[state] ?? 0])) as Record<JobState, number>);
        return [queue.name, byState] as const;
      }),
    );
    return new Map(entries);
  }

  /** Each watched queue's oldest ready job's age in seconds (0: none waits); undefined when Redis did not answer within a second. */
  async queueAges(): Promise<Map<string, number | undefined>> {
    const now = Date.now();
    const entries = await Promise.all(
      [...this.queues]
        .filter((queue) => queue.oldestWaitingSince)
        .map(async (queue) => {
          const answered = await withTimeout(
            queue.oldestWaitingSince!().then((since) => ({ since })),
            QUEUE_COUNT_TIMEOUT_MS,
          );
          const age = answered && (answered.since === undefined ? 0 : Math.max(0, (now - answered.since) / 1000));
          return [queue.name, age] as const;
        }),
    );
    return new Map(entries);
  }

  /** Counts one job this process finished. */
  jobFinished(queue: string, outcome: 'completed' | 'failed'): void {
    this.jobs.inc({ queue, outcome });
  }

  /**
   * Declares a counter in this registry, shown in /metrics (with its help) from now on.
   * Declaring the same name again with the same help and labels returns the same counter, so
   * a provider built twice in one app shares it; a different declaration of the name throws.
   */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[]): MetricCounter<L> {
    return this.declare('counter', name, help, labelNames, () => {
      const counter = new Counter<L>({ name, help, labelNames, registers: [this.registry] });
      return {
        inc: (labels, count = 1) => {
          if (count > 0) counter.inc(labels, count);
        },
      } satisfies MetricCounter<L>;
    });
  }

  /** Declares a histogram with these bucket bounds, as `counter()` declares a counter (the same name twice: the same histogram). */
  histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]): MetricHistogram<L> {
    return this.declare('histogram', name, help, labelNames, () => {
      const histogram = new Histogram<L>({ name, help, labelNames, buckets: [...buckets], registers: [this.registry] });
      return { observe: (labels, value) => histogram.observe(labels, value) } satisfies MetricHistogram<L>;
    });
  }

  /**
   * Declares a gauge read at scrape time: `collect` sets its series (those it leaves unset are not shown).
   * A scrape waits at most a second for it; one that throws or runs late leaves the gauge empty in that scrape.
   */
  gauge<L extends string>(name: string, help: string, labelNames: readonly L[], collect: (set: GaugeSetter<L>) => void | Promise<void>): void {
    this.declare('gauge', name, help, labelNames, () => {
      // Not prom-client's Gauge, which shows a label-less gauge as 0 when nothing was set: 0 would be a reading.
      const gauge = {
        name,
        help,
        type: 'gauge',
        aggregator: 'sum',
        async get() {
          const values: Array<{ labels: Record<string, string>; value: number }> = [];
          const done = await withTimeout(
            Promise.resolve(collect((labels, value) => values.push({ labels: { ...labels }, value }))).then(() => true),
            QUEUE_COUNT_TIMEOUT_MS,
          );
          return { name, help, type: 'gauge', aggregator: 'sum', values: done ? values : [] };
        },
        reset: () => undefined,
      };
      this.registry.registerMetric(gauge as unknown as Metric);
      return undefined;
    });
  }

  private declare<T>(kind: Declared['kind'], name: string, help: string, labelNames: readonly string[], create: () => T): T {
    const declared = this.counters.get(name);
    if (declared) {
      if (declared.kind !== kind || declared.help !== help || declared.labelNames.join() !== labelNames.join()) {
        throw new Error(`The metric ${name} is already declared with other help or labels.`);
      }
      return declared.metric as T;
    }
    const metric = create();
    this.counters.set(name, { kind, help, labelNames, metric });
    return metric;
  }

  /** The Prometheus text exposition. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  onModuleDestroy(): void {
    this.queues.clear();
    this.counters.clear();
    this.registry.clear();
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
