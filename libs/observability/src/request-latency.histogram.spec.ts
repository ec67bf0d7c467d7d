import { Histogram, Registry } from 'prom-client';
import { RequestLatencyHistogram } from './request-latency.histogram';

const BOUNDS = [0.001, 0.01, 0.1, 1];

describe('RequestLatencyHistogram', () => {
  it('renders exactly what prom-client’s own Histogram renders for the same observations', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    ours.setDefaultLabels({ service: 'docstore' });
    theirs.setDefaultLabels({ service: 'docstore' });
    const fast = new RequestLatencyHistogram(ours, BOUNDS);
    const reference = new Histogram({ name: fast.name, help: fast.help, labelNames: ['method', 'route', 'status'], buckets: BOUNDS, registers: [theirs] });
    const observations: Array<[string, string, number, number]> = [
      ['GET', '/a/:key', 200, 0.0004],
      ['GET', '/a/:key', 200, 0.001],
      ['GET', '/a/:key', 200, 0.05],
      ['GET', '/a/:key', 404, 2.5],
      ['PUT', '/a/:key', 200, 0.2],
      ['GET', 'unmatched', 404, 0.0001],
    ];
    for (const [method, route, status, seconds] of observations) {
      fast.record(method, route, status, seconds);
      reference.observe({ method, route, status: String(status) }, seconds);
    }
    const lines = (text: string) => text.split('\n').filter(Boolean).sort();
    expect(lines(await ours.metrics())).toEqual(lines(await theirs.metrics()));
    expect(await ours.metrics()).toContain('http_request_duration_seconds_bucket{le="0.001",service="docstore",method="GET",route="/a/:key",status="200"} 2');

    ours.resetMetrics();
    expect(await ours.metrics()).not.toContain('_count{');
  });
});
