import type { Metric, Registry } from 'prom-client';

type Label = 'method' | 'route' | 'status';

interface RenderedValue {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string | number>;
  value: number;
  metricName: string;
}

interface RenderedMetric {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: RenderedValue[];
}

interface Series {
  labels: Record<Label, string>;
  /** Observations per bucket (not cumulative); the last counts those above every bound. */
  counts: number[];
  sum: number;
  count: number;
}

/**
 * `http_request_duration_seconds`, observed on every response. prom-client's own
 * `observe` builds and hashes a label string on each call, a visible share of a GET's CPU
 * profile; here a response costs three Map lookups by strings
 * the request already holds and one increment. It is registered in a prom-client
 * registry as what the registry reads of any metric (name, help, type, `get`, `reset`),
 * and rendered by it like prom-client's own histograms.
 */
export class RequestLatencyHistogram {
  readonly name = 'http_request_duration_seconds';
  readonly help = 'Time from request to response finished, by route pattern and status; its _count is the request count.';
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** route → status → method → series */
  private readonly series = new Map<string, Map<number, Map<string, Series>>>();

  constructor(
    registry: Registry,
    private readonly bounds: readonly number[],
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  record(method: string, route: string, status: number, seconds: number): void {
    let byStatus = this.series.get(route);
    if (!byStatus) this.series.set(route, (byStatus = new Map()));
    let byMethod = byStatus.get(status);
    if (!byMethod) byStatus.set(status, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) {
      series = { labels: { method, route, status: String(status) }, counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 };
      byMethod.set(method, series);
    }
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]) bucket++;
    series.counts[bucket]++;
    series.sum += seconds;
    series.count++;
  }

  /** The metric as prom-client's registry reads it for JSON: one label set per value. */
  async get(): Promise<RenderedMetric> {
    const rendered = await this.getForPromString();
    return { ...rendered, values: rendered.values.map(({ labels, sharedLabels, ...value }) => ({ ...value, labels: { ...labels, ...sharedLabels } })) };
  }

  /** The metric as prom-client's registry reads it for the text format (the shape its Histogram gives, so the lines are the same). */
  getForPromString(): Promise<RenderedMetric> {
    const values: RenderedValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const byStatus of this.series.values()) {
      for (const byMethod of byStatus.values()) {
        for (const { labels, counts, sum, count } of byMethod.values()) {
          let cumulative = 0;
          this.bounds.forEach((le, i) => {
            cumulative += counts[i];
            values.push({ labels: { le }, sharedLabels: labels, value: cumulative, metricName: bucket });
          });
          values.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: bucket });
          values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` });
          values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${this.name}_count` });
        }
      }
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {
    this.series.clear();
  }
}
