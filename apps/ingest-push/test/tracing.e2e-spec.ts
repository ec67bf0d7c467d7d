import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { eventually, rootOfOneTree, startChildApp, startOtlpReceiver, testRedis, waitForTrace, type ChildApp, type OtlpReceiver } from '@app/testkit';
import { pushItem } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(120_000);

const MAIN = join(__dirname, '../src/main.ts');

/** Issue 39, traces: one push batch is one trace, from the request through the lane to the provider's POST. */
describe('traces through the push lanes', () => {
  let otlp: OtlpReceiver;
  let app: ChildApp | undefined;
  const prefix = `test:${process.env.TEST_RUN_ID}:${randomUUID().slice(0, 8)}:`;
  // The fake FCM and an account's token; its in-process app (no workers, same queues) is not what is traced.
  const push = usePush({
    fcm: true,
    env: { REDIS_URL: testRedis().url, REDIS_CLUSTER_NODES: '', REDIS_PREFIX: prefix, PUSH_WORKERS: 'off', PUSH_RELAY_INTERVAL_MS: '100' },
  });

  beforeAll(async () => (otlp = await startOtlpReceiver()));
  afterAll(async () => {
    await app?.stop();
    await otlp.close();
  });

  it('the batch POST, its SQL, the job, the send and the FCM call are one trace; FCM sees its traceparent', async () => {
    app = await startChildApp(MAIN, 'ingest-push', {
      ...push.env,
      PUSH_WORKERS: 'inline',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const res = await fetch(`${app.url}/api/pushm/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${push.token}`, accept: 'application/json', 'content-type': 'application/hal+json' },
      body: JSON.stringify({ pushs: [pushItem({ nm_push: 'traced-device' })] }),
    });
    expect(res.status).toBe(202);
    const batchId = ((await res.json()) as { batch_id: string }).batch_id;
    const call = await eventually(() => push.fcm.received.find((r) => r.device === 'traced-device'), { what: 'the FCM call', timeoutMs: 20_000 });
    const traceparent = String(call.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = traceparent.split('-')[1];
    const spans = await waitForTrace(otlp, traceId, { method: 'POST', job: 'push-android process', work: 'push send' });
    expect(rootOfOneTree(spans)).toHaveLength(1);
    const send = spans.find((s) => s.name === 'push send')!;
    expect(send.attributes).toMatchObject({ 'app.push.platform': 'android', 'app.attempt': 1, 'app.provider': 'fcm', 'app.push.outcome': 'sent' });
    const fcmCall = spans.find((s) => s.kind === 3 && s.attributes['http.request.method'] === 'POST' && s.spanId === traceparent.split('-')[2])!;
    expect(fcmCall.parentSpanId).toBe(send.spanId);
    const server = rootOfOneTree(spans)[0];
    expect(server.attributes).toMatchObject({
      'http.route': '/api/pushm/bulk',
      'app.batch.id': batchId,
      'app.rows.accepted': 1,
      'app.owner': expect.any(String),
    });
  });
});
