import { eventually, metricSample, startWebhookReceiver, type WebhookReceiver } from '@app/testkit';
import { docBody, request, useDocstore, type Client, type Docstore } from './support/docstore-test';

// Deliveries are asynchronous: the test waits for them (never for a fixed time), bounded by this.
jest.setTimeout(30_000);

const FAST = { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_RELAY_INTERVAL_MS: '100', WEBHOOK_CACHE_SECONDS: '0' };

describe('docstore: /metrics and /health', () => {
  let ds: Docstore;
  let c: Client;
  let receiver: WebhookReceiver;
  useDocstore({ app: (d) => (ds = d), client: (x) => (c = x) }, FAST);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.close());

  it('counts requests by route pattern and status, webhook deliveries by outcome and delivery jobs, and reports the queue backlog', async () => {
    await request(ds.http)
      .post(`/api/v1/client/${c.id}/webhooks`)
      .set(c.auth)
      .send({ url: receiver.url, events: ['document.created'] })
      .expect(201);
    await request(ds.http)
      .post(`${c.doc()}/k1`)
      .set(c.auth)
      .send(docBody('k1', { n: 1 }))
      .expect(201);
    await request(ds.http).get(`${c.doc()}/nope`).set(c.auth).expect(404);
    await receiver.waitFor(1);

    let text = '';
    for (;;) {
      text = (await request(ds.http).get('/metrics').expect(200)).text;
      if (
        (metricSample(text, 'webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0) >= 1 &&
        metricSample(text, 'queue_jobs_processed_total', { queue: 'webhook-delivery', outcome: 'completed' })
      )
        break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const route = '/api/v1/client/:client/:environment/context/:context/type/:type/:key';
    expect(metricSample(text, 'http_request_duration_seconds_count', { method: 'POST', route, status: '201', service: 'docstore' })).toBe(1);
    expect(metricSample(text, 'http_request_duration_seconds_count', { method: 'GET', route, status: '404' })).toBe(1);
    expect(metricSample(text, 'queue_jobs', { queue: 'webhook-delivery', state: 'waiting' })).toEqual(expect.any(Number));
    expect(text).not.toContain(c.id);

    const health = await request(ds.http).get('/health').expect(200);
    expect(health.body.info['queue:webhook-delivery']).toEqual({
      status: 'up',
      waiting: expect.any(Number),
      active: expect.any(Number),
      delayed: expect.any(Number),
      failed: expect.any(Number),
    });
  });

  it('reports delivery lag, endpoints failing and for how long, the oldest job waiting, the database pool and readiness', async () => {
    // An endpoint that refuses connections: its deliveries fail and it starts a failing run.
    await request(ds.http)
      .post(`/api/v1/client/${c.id}/webhooks`)
      .set(c.auth)
      .send({ url: 'http://127.0.0.1:9/refused', events: ['document.created'] })
      .expect(201);
    await request(ds.http)
      .post(`${c.doc()}/k-failing`)
      .set(c.auth)
      .send(docBody('k-failing', { n: 1 }))
      .expect(201);
    await request(ds.http).get('/health').expect(200);
    const text = await eventually(
      async () => {
        const body = (await request(ds.http).get('/metrics').expect(200)).text;
        return (metricSample(body, 'webhook_endpoints_failing', {}) ?? 0) >= 1 ? body : undefined;
      },
      { what: 'a failing webhook in /metrics', timeoutMs: 15_000 },
    );
    expect(metricSample(text, 'webhook_failing_longest_seconds', { service: 'docstore' })).toBeGreaterThanOrEqual(0);
    expect(metricSample(text, 'webhook_delivery_lag_seconds_count', { service: 'docstore' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, 'webhook_delivery_lag_seconds_bucket', { le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, 'queue_oldest_job_age_seconds', { queue: 'webhook-delivery' })).toEqual(expect.any(Number));
    expect(metricSample(text, 'db_pool_connections', { state: 'max' })).toBe(4); // the test kit's DB_POOL_SIZE
    expect(metricSample(text, 'db_pool_connections', { state: 'open' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, 'db_pool_connections', { state: 'waiting' })).toBe(0);
    expect(metricSample(text, 'health_ready', { service: 'docstore' })).toBe(1);
    expect(text).toContain('# TYPE health_readiness_changes_total counter');
  });

  it('keeps /metrics out of the OpenAPI document and answers it without credentials', async () => {
    const json = await request(ds.http).get('/docs-json').expect(200);
    expect(json.body.paths['/metrics']).toBeUndefined();
    await request(ds.http).get('/metrics').expect(200);
  });
});
