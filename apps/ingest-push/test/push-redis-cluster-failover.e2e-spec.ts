import 'reflect-metadata';
import { laneToken, type QueueLane } from '@app/queue';
import { eventually, startOwnRedisCluster, type OwnRedisCluster } from '@app/testkit';
import { PUSH_QUEUES } from '../src/push/push-queue';
import { itemRows, pushItem } from './support/push-test';
import { usePush } from './support/use-push';

jest.setTimeout(120_000);

/**
 * On a Redis Cluster of 3 masters and 3 replicas: the master serving the Android queue's hash slot is killed
 * while pushes flow. Its replica takes over, and the outbox in PostgreSQL sends every push exactly once.
 */
describe('push on a Redis Cluster whose queue master dies', () => {
  let cluster: OwnRedisCluster;

  beforeAll(async () => {
    cluster = await startOwnRedisCluster({ nodeTimeoutMs: 1000 });
  });
  const push = usePush({
    fcm: true,
    env: () => ({
      REDIS_CLUSTER_NODES: cluster.nodes,
      PUSH_CONCURRENCY: '2',
      PUSH_ITEMS_PER_JOB: '10',
      PUSH_SWEEP_SECONDS: '1',
      PUSH_WORKER_LOCK_SECONDS: '2',
    }),
  });
  // Declared after usePush: Jest runs afterAll hooks in order, so the app closes before the cluster stops.
  afterAll(() => cluster?.stop());

  it('loses no push and sends none twice; the replica takes over', async () => {
    const count = 300;
    push.fcm.delayMs = 20;
    const posted = await push.app.post(
      push.token,
      Array.from({ length: count }, (_, i) => pushItem({ nm_push: `failover-${i}` })),
    );
    expect(posted.status).toBe(202);
    await push.app.until(
      'sends under way',
      () => push.fcm.received.length,
      (n) => n >= 30,
    );

    // The queue's keys all carry its hash tag: one slot, one master.
    const master = await cluster.masterOf('{push-android}');
    await cluster.kill(master);
    const killedAt = Date.now();
    const sentBefore = push.fcm.received.length;
    expect(sentBefore).toBeLessThan(count);

    const rows = await push.app.until(
      'every push sent',
      () => itemRows(push.app.sql, posted.body.batch_id),
      (r) => r.every((x) => x.status === 'sent'),
    );
    const drainMs = Date.now() - killedAt;
    // No job left in the queue: nothing more can be sent.
    const lane = push.app.get<QueueLane>(laneToken(PUSH_QUEUES.android));
    await eventually(async () =>
      Object.values(await lane.producer.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).every((n) => n === 0) ? true : undefined,
    );
    const promoted = await cluster.masterOf('{push-android}');
    expect(promoted).not.toBe(master);
    expect(await cluster.role(promoted)).toBe('master');

    expect(rows).toHaveLength(count);
    const devices = push.fcm.received.map((r) => r.device).filter((d) => d.startsWith('failover-'));
    expect({ sent: devices.length, distinct: new Set(devices).size }).toEqual({ sent: count, distinct: count });
    process.stdout.write(`push failover: ${count - sentBefore} of ${count} pushes sent after the kill, drained ${drainMs} ms after it\n`);
  });
});
