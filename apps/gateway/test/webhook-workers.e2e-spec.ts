import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Module, type Type } from '@nestjs/common';
import { Sql } from '@app/database';
import { QueueProducer } from '@app/queue';
import { createTestApp, eventually, makeCertificates, metricSample, startWebhookReceiver, testRedis, type TestApp, type WebhookReceiver } from '@app/testkit';
import { WEBHOOK_DELIVERY_QUEUE, WEBHOOK_LANE, type WebhookLane } from '@app/webhooks';
import { gatewayModule } from '../src/app.module';
import { gatewayWebhookWorkerModule } from '../src/webhook-worker.module';
import { request, text, withPhones, type Gateway } from './support/gateway-test';

// Deliveries are asynchronous: the test waits for them, bounded by this.
jest.setTimeout(30_000);

/**
 * Production's split (k8s/base/gateway.yaml): the API with WEBHOOK_WORKERS=off records the
 * sandbox's notifications and queues them but sends nothing; a worker-only process
 * (WEBHOOK_WORKERS=only) on the same database and Redis prefix delivers them.
 */
/** The delivery queue as Redis sees it: how many workers take its jobs (BullMQ names their connections after the queue). */
class DeliveryQueueProbe extends QueueProducer<unknown> {
  workers(): Promise<number> {
    return this.queue.getWorkersCount();
  }
}

describe('gateway webhook workers in a separate process (WEBHOOK_WORKERS=off / only)', () => {
  const certs = makeCertificates();
  const env = {
    REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:gw-split-${randomUUID().slice(0, 8)}:`,
    SANDBOX_STATUS_DELAY_MS: '20',
    MEDIA_DIR: `/tmp/gateway-test-media-${process.pid}`,
    WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
    GATEWAY_SERVICE_WINDOW: 'off',
    WEBHOOK_RELAY_INTERVAL_MS: '50',
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2',
    WEBHOOK_CACHE_SECONDS: '0',
  };
  let api: Gateway;
  let worker: TestApp | undefined;
  let receiver: WebhookReceiver;
  const probe = new DeliveryQueueProbe(WEBHOOK_DELIVERY_QUEUE, { ...testRedis(), redisPrefix: env.REDIS_PREFIX });

  beforeAll(async () => {
    @Module({ imports: [gatewayModule({ trustedCertificates: [certs.ca] })] })
    class ApiTrustingTestCa {}
    api = withPhones(await createTestApp(ApiTrustingTestCa as Type, { ...env, WEBHOOK_WORKERS: 'off' }));
    receiver = await startWebhookReceiver({ tls: certs.signed });
  });
  afterAll(async () => {
    await worker?.close();
    await api.close();
    await receiver.close();
    await probe.close();
  });

  it('the API records and queues the notifications, the worker-only process delivers them', async () => {
    const phone = await api.newPhone();
    const hook = (
      await request(api.http)
        .post('/api/Webhooks')
        .set(phone.headers)
        .send({ phone: phone.phone, types: ['messages'], endpoint: receiver.url })
        .expect(201)
    ).body;
    const sent = await request(api.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(200);
    const messageId = sent.body.messages[0].id as string;
    const deliveries = () =>
      api
        .get(Sql)
        .rows<{ status: string; attempts: number }>(`SELECT status, attempts FROM gateway.webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at`, [
          hook.id,
        ]);

    // sent, delivered and read are recorded by the API's sandbox and handed to the queue, where they wait.
    await eventually(async () => ((await deliveries()).length === 3 ? true : undefined));
    await api.get<WebhookLane>(WEBHOOK_LANE).drain();
    const waiting = () =>
      request(api.http)
        .get('/metrics')
        .then((res) => metricSample(res.text, 'queue_jobs', { queue: 'webhook-delivery', state: 'waiting' }) ?? 0);
    await eventually(async () => ((await waiting()) > 0 ? true : undefined));
    // No process takes the jobs: the API runs no worker on the lane, so nothing can be sent.
    expect(await probe.workers()).toBe(0);
    expect(receiver.calls).toHaveLength(0);
    expect(await deliveries()).toEqual(Array.from({ length: 3 }, () => ({ status: 'pending', attempts: 0 })));
    expect(await waiting()).toBeGreaterThan(0);

    @Module({ imports: [gatewayWebhookWorkerModule({ trustedCertificates: [certs.ca] })] })
    class WorkerTrustingTestCa {}
    worker = await createTestApp(WorkerTrustingTestCa as Type, { ...env, WEBHOOK_WORKERS: 'only' });
    await request(worker.http).get('/health').expect(200);
    // The probe sees a worker when there is one.
    await eventually(async () => ((await probe.workers()) > 0 ? true : undefined));
    const metrics = await request(worker.http).get('/metrics').expect(200);
    expect(metrics.text).toContain('service="gateway-webhooks"');
    // No API in the worker: its routes are not there.
    await request(worker.http).get('/api/Webhooks').set(phone.headers).expect(404);
    await request(worker.http).post('/api/Messages').set(phone.headers).send(text('15550102030')).expect(404);

    const calls = await receiver.waitFor(3);
    expect(
      calls
        .map((c) => c.json.entry[0].changes[0].value.statuses[0])
        .map((s: { id: string; status: string }) => [s.id, s.status])
        .sort(),
    ).toEqual([
      [messageId, 'delivered'],
      [messageId, 'read'],
      [messageId, 'sent'],
    ]);
    expect(await eventually(async () => ((await deliveries()).every((d) => d.status === 'succeeded') ? deliveries() : undefined))).toEqual(
      Array.from({ length: 3 }, () => ({ status: 'succeeded', attempts: 1 })),
    );
  });
});
