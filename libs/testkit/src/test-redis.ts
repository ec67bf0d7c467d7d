import { join } from 'node:path';
import type { RedisTarget } from '@app/redis';

/**
 * The run's Redis: TEST_REDIS_URL, or the Redis Cluster the run started with TEST_REDIS_CLUSTER=1
 * (TEST_REDIS_CLUSTER_NODES). Apps booted by createTestApp use it, and so do tests that open queues themselves.
 */
export function testRedis(): RedisTarget {
  return { url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', clusterNodes: process.env.TEST_REDIS_CLUSTER_NODES ?? '' };
}

/** Whether this run's apps use a Redis Cluster. */
export function onRedisCluster(): boolean {
  return Boolean(testRedis().clusterNodes);
}

/** A Redis Cluster of a test's own on loopback (tools/redis-cluster.js), to break without disturbing other tests. */
export interface OwnRedisCluster {
  /** REDIS_CLUSTER_NODES: `127.0.0.1:port,…`. */
  nodes: string;
  ports: number[];
  stop(): Promise<void>;
  /** Kills one node outright (as a crash would). */
  kill(port: number): Promise<void>;
  /** Cuts a master off from its replicas: what it writes from then on exists only on it (and dies with it). */
  cutReplicas(port: number): Promise<void>;
  /** The port of the master serving `key` now. */
  masterOf(key: string): Promise<number>;
  /** 'master' or 'slave'; undefined when the node does not answer. */
  role(port: number): Promise<string | undefined>;
}

/**
 * Starts `masters` masters with `replicas` replicas each; resolves once all slots are served and replicas in sync.
 * `nodeTimeoutMs`: how long a master is unreachable before its replica takes over.
 */
export function startOwnRedisCluster(options: { masters?: number; replicas?: number; nodeTimeoutMs?: number } = {}): Promise<OwnRedisCluster> {
  // The starter Jest's global setup uses (TEST_REDIS_CLUSTER=1): plain JavaScript in tools/, which runs before any build
  // and so has no import alias. The path is built, not written: a literal path would make Nx count tools/ (and its
  // Nx packages) as a dependency of every app whose tests use the test kit, and put them into the images.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startRedisCluster } = require(join(__dirname, '..', '..', '..', 'tools', 'redis-cluster')) as {
    startRedisCluster(o: typeof options): Promise<OwnRedisCluster>;
  };
  return startRedisCluster(options);
}
