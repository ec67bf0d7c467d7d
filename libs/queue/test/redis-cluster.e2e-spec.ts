import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { connectRedis, type RedisClient } from '@app/redis';
import { eventually, startOwnRedisCluster, type OwnRedisCluster } from '@app/testkit';
import { queueAddress, type QueueConnection } from '../src/queue-connection';
import { QueueProducer } from '../src/queue-producer';
import { QueueWorker, type Job } from '../src/queue-worker';

jest.setTimeout(60_000);

class CountingWorker extends QueueWorker<{ n: number }> {
  readonly seen: number[] = [];

  protected async process(job: Job<{ n: number }>): Promise<void> {
    this.seen.push(job.data.n);
  }
}

/** Queues on a Redis Cluster of 3 masters and 3 replicas. */
describe('queues on a Redis Cluster', () => {
  let cluster: OwnRedisCluster;
  let connection: QueueConnection;
  const clients: RedisClient[] = [];

  beforeAll(async () => {
    cluster = await startOwnRedisCluster();
    connection = { url: 'redis://127.0.0.1:6379', clusterNodes: cluster.nodes, redisPrefix: `test:${randomUUID().slice(0, 8)}:` };
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await cluster?.stop();
  });

  it("keeps each queue's keys in one hash slot, and spreads queues over the masters", async () => {
    const queues = ['webhook-delivery', 'push-android', 'push-ios'];
    for (const queue of queues) {
      const producer = new QueueProducer<{ n: number }>(queue, connection);
      const worker = new CountingWorker(queue);
      try {
        worker.start(connection, 2);
        await producer.add(Array.from({ length: 20 }, (_, n) => ({ name: 'work', data: { n }, jobId: `${queue}-${n}` })));
        await eventually(async () => (worker.seen.length === 20 ? true : undefined));
        expect([...worker.seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, n) => n));
      } finally {
        await worker.close();
        await producer.close();
      }
    }
    const prefixes = queues.map((queue) => queueAddress(connection, queue).prefix);
    expect(prefixes).toEqual(queues.map((queue) => `${connection.redisPrefix}bull:{${queue}}`));
    const masters = await Promise.all(prefixes.map((prefix) => cluster.masterOf(prefix)));
    // Without tags of their own every queue would sit on one master; these three hash to slots of two.
    expect(new Set(masters).size).toBeGreaterThan(1);
  });

  it('needs the hash tag: without it BullMQ scripts fail with CROSSSLOT', async () => {
    const redis = connectRedis(connection, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    const untagged = new Queue('webhook-delivery', { connection: redis, prefix: `${connection.redisPrefix}bull` });
    try {
      await expect(untagged.add('work', { n: 1 })).rejects.toThrow(/CROSSSLOT/);
    } finally {
      await untagged.close();
    }
  });
});
