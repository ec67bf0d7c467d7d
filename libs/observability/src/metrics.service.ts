import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
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

interface Declared {
  help: string;
  labelNames: readonly string[];
  counter: MetricCounter<string>;
}

/** A queue whose backlog is reported: a BullMQ Queue, or libs/queue's QueueProducer. */
export interface CountableQueue {
  readonly name: string;
  getJobCounts(...states: JobState[]): Promise<Record<string, number>>;
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
    const declared = this.counters.get(name);
    if (declared) {
      if (declared.help !== help || declared.labelNames.join() !== labelNames.join()) {
        throw new Error(`The metric ${name} is already declared with other help or labels.`);
      }
      return declared.counter;
    }
    const counter = new Counter<L>({ name, help, labelNames, registers: [this.registry] });
    const typed: MetricCounter<L> = {
      inc: (labels, count = 1) => {
        if (count > 0) counter.inc(labels, count);
      },
    };
    this.counters.set(name, { help, labelNames, counter: typed as MetricCounter<string> });
    return typed;
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
