import type { ChildProcess } from 'node:child_process';
import { freePort, startOwnRedis, startWebhookReceiver, stopOwnRedis, type WebhookReceiver } from '@app/testkit';
import { WEBHOOK_LANE, type WebhookLane } from '@app/webhooks';
import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

// Deliveries are asynchronous: tests wait for them (never for a fixed time), bounded by this.
jest.setTimeout(30_000);

describe('webhooks while Redis is down', () => {
  let redis: ChildProcess;
  let port: number;
  let ds: Docstore;
  let c: Client;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    port = await freePort();
    redis = await startOwnRedis(port);
    receiver = await startWebhookReceiver();
    ds = await startDocstore({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      WEBHOOK_RELAY_INTERVAL_MS: '100',
      WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
    });
    c = await ds.newClient();
  });
  afterAll(async () => {
    await ds.close();
    await receiver.close();
    await stopOwnRedis(redis);
  });

  it('accepts every write, keeps its event in the outbox, and delivers each once Redis is back', async () => {
    await request(ds.http)
      .post(`/api/v1/client/${c.id}/webhooks`)
      .set(c.auth)
      .send({ url: receiver.url, events: ['document.created'] })
      .expect(201);
    await request(ds.http).post(`${c.doc()}/before`).set(c.auth).send(docBody('before', {})).expect(201);
    await receiver.waitFor(1);

    await stopOwnRedis(redis);
    const keys = Array.from({ length: 20 }, (_, i) => `during-${i}`);
    for (const key of keys) await request(ds.http).post(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, { key })).expect(201);
    expect((await request(ds.http).get('/health').expect(200)).body.info.redis.status).toBe('down');
    expect(receiver.calls).toHaveLength(1);

    redis = await startOwnRedis(port);
    const calls = await receiver.waitFor(21);
    expect(new Set(calls.map((call) => call.json.data.key))).toEqual(new Set(['before', ...keys]));
  });
});

describe('webhook jobs lost with Redis data', () => {
  it('queues again at once (not after the periodic check) a delivery whose job an empty restarted Redis no longer has', async () => {
    const port = await freePort();
    let redis = await startOwnRedis(port);
    const receiver = await startWebhookReceiver();
    // One queue for both apps: the same Redis and the same key prefix.
    const env = {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:outage-${port}:`,
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      WEBHOOK_RELAY_INTERVAL_MS: '100',
      WEBHOOK_REQUEUE_AFTER_SECONDS: '3600',
    };
    const api = await startDocstore({ ...env, WEBHOOK_WORKERS: 'off' });
    let worker: Docstore | undefined;
    try {
      const c = await api.newClient();
      await request(api.http)
        .post(`/api/v1/client/${c.id}/webhooks`)
        .set(c.auth)
        .send({ url: receiver.url, events: ['document.created'] })
        .expect(201);
      await request(api.http).post(`${c.doc()}/k`).set(c.auth).send(docBody('k', {})).expect(201);
      await api.get<WebhookLane>(WEBHOOK_LANE).drain(); // the job is now in Redis, and only there
      await stopOwnRedis(redis);
      redis = await startOwnRedis(port); // empty: no persistence
      worker = await startDocstore({ ...env, WEBHOOK_WORKERS: 'only' });
      const [call] = await receiver.waitFor(1);
      expect(call.json).toMatchObject({ type: 'document.created', data: { key: 'k' } });
    } finally {
      await worker?.close();
      await api.close();
      await receiver.close();
      await stopOwnRedis(redis);
    }
  });
});
