import Redis, { Cluster, type ClusterNode, type RedisOptions } from 'ioredis';
import type { RedisConfig } from './redis.config';

/** A client of one Redis server or of a Redis Cluster: the commands the services send are the same on both. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: `url` (REDIS_URL), or the cluster `clusterNodes` names (REDIS_CLUSTER_NODES) with `url`'s credentials and TLS. */
export interface RedisTarget {
  url: string;
  /** `host:port,host:port`; empty or absent for one server. */
  clusterNodes?: string;
}

/** How a client behaves while Redis is away and under load; the same on a server and on a cluster. */
export interface RedisClientOptions {
  keyPrefix?: string;
  /** False: commands fail at once while disconnected instead of waiting (the default waits). */
  enableOfflineQueue?: boolean;
  enableAutoPipelining?: boolean;
  /** Null waits out an outage (BullMQ's workers need this). */
  maxRetriesPerRequest: number | null;
  connectTimeout?: number;
  commandTimeout?: number;
}

/** The target of a service's settings. */
export function redisTarget(config: Pick<RedisConfig, 'REDIS_URL' | 'REDIS_CLUSTER_NODES'>): RedisTarget {
  return { url: config.REDIS_URL, clusterNodes: config.REDIS_CLUSTER_NODES };
}

export function isCluster(target: RedisTarget): boolean {
  return Boolean(target.clusterNodes);
}

const reconnect = (times: number) => Math.min(times * 200, 2000);

/** Opens a client of the target: `Redis.Cluster` when it names cluster nodes, a plain connection otherwise. */
export function connectRedis(target: RedisTarget, options: RedisClientOptions): RedisClient {
  const { keyPrefix, enableOfflineQueue, enableAutoPipelining, ...perConnection } = options;
  if (!isCluster(target)) return new Redis(target.url, { ...options, retryStrategy: reconnect });
  const url = new URL(target.url);
  const tls = url.protocol === 'rediss:';
  const nodes: ClusterNode[] = target.clusterNodes!.split(',').map((node) => {
    const at = node.lastIndexOf(':');
    return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
  });
  const redisOptions: RedisOptions = {
    ...perConnection,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(tls ? { tls: {} } : {}),
  };
  return new Cluster(nodes, {
    keyPrefix,
    enableOfflineQueue,
    enableAutoPipelining,
    clusterRetryStrategy: reconnect,
    // Managed clusters announce nodes by hostname; resolving them here would make TLS check certificates against IPs.
    ...(tls ? { dnsLookup: (address: string, done: (error: null, address: string) => void) => done(null, address) } : {}),
    redisOptions,
  });
}
