import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { generateEncryptionKeys } from '@app/secrets';
import {
  eventually,
  rootOfOneTree,
  startChildApp,
  startOtlpReceiver,
  startWebhookReceiver,
  waitForTrace,
  type ChildApp,
  type OtlpReceiver,
  type ReceivedSpan,
  type WebhookReceiver,
} from '@app/testkit';
import { docBody, request, startDocstore, type Client } from './support/docstore-test';

const MAIN = join(__dirname, '../src/main.ts');
const KEYS = process.env.ENCRYPTION_KEYS || generateEncryptionKeys('test');
const FAST = { WEBHOOK_ALLOWED_TARGETS: '127.0.0.1', WEBHOOK_RELAY_INTERVAL_MS: '100', WEBHOOK_CACHE_SECONDS: '0', ENCRYPTION_KEYS: KEYS };

/** The trace of the PUT that the receiver's request names, once its spans (HTTP in, SQL, the job, the POST) all arrived. */
function traceOfDelivery(otlp: OtlpReceiver, traceparent: string): Promise<ReceivedSpan[]> {
  return waitForTrace(otlp, traceparent.split('-')[1], { method: 'PUT', job: 'webhook-delivery process', work: 'webhook deliver' });
}

function expectOneTree(spans: ReceivedSpan[]): void {
  // One trace: one root (the PUT's server span), and every other span's parent is in it.
  const roots = rootOfOneTree(spans);
  expect(roots).toHaveLength(1);
  expect(roots[0]).toMatchObject({ kind: 2, attributes: expect.objectContaining({ 'http.request.method': 'PUT' }) });
  const job = spans.find((s) => s.name === 'webhook-delivery process')!;
  const deliver = spans.find((s) => s.name === 'webhook deliver')!;
  const post = spans.find((s) => s.kind === 3 && s.attributes['http.request.method'] === 'POST')!;
  expect(job.kind).toBe(5);
  expect(job.attributes).toMatchObject({ 'messaging.system': 'bullmq', 'messaging.destination.name': 'webhook-delivery', 'app.job.attempt': 1 });
  expect(deliver.attributes).toMatchObject({
    'app.event.type': 'document.updated',
    'app.attempt': 1,
    'http.response.status_code': 200,
    'app.delivery.status': 'succeeded',
  });
  expect(post.parentSpanId).toBe(deliver.spanId);
  expect(post.attributes['http.response.status_code']).toBe(200);
}

jest.setTimeout(120_000);

/** Issue 39, traces: one docstore PUT with a webhook is one trace, from the request through the queue to the POST. */
describe('traces through the webhook queue', () => {
  let otlp: OtlpReceiver;
  let receiver: WebhookReceiver;
  let client: Client;
  let api: ChildApp | undefined;
  let worker: ChildApp | undefined;

  beforeAll(async () => {
    otlp = await startOtlpReceiver();
    receiver = await startWebhookReceiver();
    // The client and its webhook, made through the API of an in-process app that is closed again.
    const ds = await startDocstore(FAST);
    try {
      client = await ds.newClient();
      await request(ds.http)
        .post(`/api/v1/client/${client.id}/webhooks`)
        .set(client.auth)
        .send({ url: receiver.url, events: ['document.updated'] })
        .expect(201);
    } finally {
      await ds.close();
    }
  });
  afterEach(async () => {
    await api?.stop();
    await worker?.stop();
    api = worker = undefined;
  });
  afterAll(async () => {
    await receiver.close();
    await otlp.close();
  });

  const tracing = (prefix: string) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    REDIS_PREFIX: `test:traces:${prefix}:`,
  });

  /** Creates the document (no event subscribed), then updates it with a PUT: the webhook's event. */
  const put = async (base: string, key: string) => {
    const send = (method: string) =>
      fetch(`${base}${client.doc()}/${key}`, {
        method,
        headers: { ...client.auth, 'content-type': 'application/json' },
        body: JSON.stringify(docBody(key, { method })),
      });
    expect((await send('POST')).status).toBe(201);
    return send('PUT');
  };

  it('a PUT, its SQL, the job, the delivery and its POST are one trace; the receiver gets its traceparent; logs carry trace_id', async () => {
    api = await startChildApp(MAIN, 'docstore', { ...FAST, ...tracing(randomUUID()) });
    const res = await put(api.url, 'inline');
    expect(res.status).toBe(200);
    const [call] = await receiver.waitFor(1, (c) => c.json?.data?.key === 'inline');
    const traceparent = String(call.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const spans = await traceOfDelivery(otlp, traceparent);
    expectOneTree(spans);
    expect(spans.every((s) => s.service === 'docstore')).toBe(true);
    const server = spans.find((s) => s.kind === 2)!;
    expect(server.attributes['http.route']).toContain('/type/:type/:key');
    expect(server.attributes).toMatchObject({ 'app.owner': client.id, 'app.path.type': 'product', 'app.path.context': 'shop', 'app.path.key': 'inline' });
    // The POST the receiver saw is the client span of the trace.
    expect(spans.find((s) => s.kind === 3 && s.attributes['http.request.method'] === 'POST')!.spanId).toBe(traceparent.split('-')[2]);
    // The request's log line joins the trace.
    await eventually(() => api!.lines.find((l) => l.includes(`"trace_id":"${server.traceId}"`)), { what: 'a log line with the trace id', timeoutMs: 5_000 });
  });

  it('holds across a worker restart: the API process enqueues and stops, a worker started later sends in the same trace', async () => {
    const prefix = randomUUID();
    api = await startChildApp(MAIN, 'docstore', { ...FAST, ...tracing(prefix), WEBHOOK_WORKERS: 'off' });
    const res = await put(api.url, 'restart');
    expect(res.status).toBe(200);
    // The relay has put the delivery's job in the queue; nobody takes it.
    await eventually(async () => (otlp.spans.some((s) => s.kind === 2 && s.attributes['http.request.method'] === 'PUT' && s.traceId) ? true : undefined), {
      what: 'the PUT span',
      timeoutMs: 10_000,
    });
    await api.stop();
    expect(receiver.calls.some((c) => c.json?.data?.key === 'restart')).toBe(false);
    worker = await startChildApp(MAIN, 'docstore', { ...FAST, ...tracing(prefix), WEBHOOK_WORKERS: 'only' });
    const [call] = await receiver.waitFor(1, (c) => c.json?.data?.key === 'restart');
    const spans = await traceOfDelivery(otlp, String(call.headers.traceparent));
    expectOneTree(spans);
  });
});
