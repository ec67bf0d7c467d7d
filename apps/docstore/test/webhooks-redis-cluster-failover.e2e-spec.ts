import { Sql } from '@app/database';
import { eventually, startOwnRedisCluster, startWebhookReceiver, type OwnRedisCluster, type WebhookReceiver } from '@app/testkit';
import { WEBHOOK_LANE, WebhookTables, type WebhookLane } from '@app/webhooks';
import { docBody, request, startDocstore, type Client, type Docstore } from './support/docstore-test';

jest.setTimeout(120_000);

/**
 * On a Redis Cluster of 3 masters and 3 replicas: the master serving the delivery queue's hash slot is killed
 * while documents are written. Its replica takes over, and the outbox in PostgreSQL delivers every event and records
 * one attempt of each. A job the promoted replica never received, or received as still waiting, runs again (queued
 * again by the relay, or taken over by another worker), but each attempt is claimed in PostgreSQL before it is sent:
 * the receiver gets every delivery exactly once, counted by its `webhook-id`.
 */
describe('webhooks on a Redis Cluster whose queue master dies', () => {
  let cluster: OwnRedisCluster;
  let receiver: WebhookReceiver;
  let ds: Docstore;
  let c: Client;

  beforeAll(async () => {
    cluster = await startOwnRedisCluster({ nodeTimeoutMs: 1000 });
    receiver = await startWebhookReceiver();
    ds = await startDocstore({
      REDIS_CLUSTER_NODES: cluster.nodes,
      WEBHOOK_ALLOWED_TARGETS: '127.0.0.1',
      WEBHOOK_RELAY_INTERVAL_MS: '100',
      WEBHOOK_REQUEUE_AFTER_SECONDS: '1',
      WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
    });
    c = await ds.newClient();
  });
  afterAll(async () => {
    await ds?.close();
    await receiver?.close();
    await cluster?.stop();
  });

  it('accepts every write, delivers every event once and records one attempt of each; the replica takes over', async () => {
    await request(ds.http)
      .post(`/api/v1/client/${c.id}/webhooks`)
      .set(c.auth)
      .send({ url: receiver.url, events: ['document.created'] })
      .expect(201);
    // The deliveries written between the cut and the kill are still being answered when the master dies.
    const slow = new Set(Array.from({ length: 20 }, (_, i) => `k-${50 + i}`));
    receiver.answer((call) => ({ status: 200, delayMs: slow.has(String(call.json?.data?.key)) ? 5000 : 10 }));
    const keys = Array.from({ length: 200 }, (_, i) => `k-${i}`);
    const master = await cluster.masterOf('{webhook-delivery}');
    let killedAt = 0;
    let deliveredBefore = 0;
    for (const [i, key] of keys.entries()) {
      if (i === 50) {
        await receiver.waitFor(10);
        // Its replica stops following: the jobs of the next writes die with the master while their requests are under way.
        await cluster.cutReplicas(master);
      }
      if (i === 70) {
        await receiver.waitFor(1, (call) => call.json?.data?.key === 'k-69');
        await cluster.kill(master);
        killedAt = Date.now();
        deliveredBefore = receiver.calls.length;
      }
      await request(ds.http).post(`${c.doc()}/${key}`).set(c.auth).send(docBody(key, { key })).expect(201);
    }
    await receiver.waitFor(keys.length);
    const drainMs = Date.now() - killedAt;

    // Every delivery recorded as succeeded and no job left in the queue: nothing more can be sent.
    const sql = ds.get(Sql);
    const deliveries = ds.get(WebhookTables).deliveries;
    await eventually(async () => {
      const open = await sql.one<{ n: number }>(`SELECT count(*)::int AS n FROM ${deliveries} WHERE owner = $1 AND status <> 'succeeded'`, [c.id]);
      const counts = await ds.get<WebhookLane>(WEBHOOK_LANE).producer.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      return open!.n === 0 && Object.values(counts).every((n) => n === 0) ? true : undefined;
    });
    const delivered = receiver.calls.map((call) => String(call.json.data.key));
    expect(new Set(delivered)).toEqual(new Set(keys));
    const perDelivery = new Map<string, number>();
    for (const call of receiver.calls) perDelivery.set(String(call.headers['webhook-id']), (perDelivery.get(String(call.headers['webhook-id'])) ?? 0) + 1);
    const sentTwice = [...perDelivery.values()].filter((n) => n > 1).length;
    const recorded = await sql.rows<{ attempts: number; n: number }>(
      `SELECT attempts, count(*)::int AS n FROM ${deliveries} WHERE owner = $1 GROUP BY attempts`,
      [c.id],
    );
    expect(recorded).toEqual([{ attempts: 1, n: keys.length }]);

    const promoted = await cluster.masterOf('{webhook-delivery}');
    expect(promoted).not.toBe(master);
    expect(await cluster.role(promoted)).toBe('master');
    process.stdout.write(
      `webhook failover: ${keys.length - deliveredBefore} of ${keys.length} events delivered after the kill, drained ${drainMs} ms after it, ${sentTwice} sent twice\n`,
    );
    expect(sentTwice).toBe(0);
    expect(receiver.calls).toHaveLength(keys.length);
  });
});
