import { connectRedis, isCluster, type RedisClient, type RedisTarget } from '@app/redis';

/**
 * Where a queue lives: the Redis server or cluster, and the service's key prefix (services and test apps never
 * share a queue).
 */
export interface QueueConnection extends RedisTarget {
  redisPrefix: string;
}

/** Where one queue lives in Redis: BullMQ's queue name and key prefix. */
export interface QueueAddress {
  name: string;
  prefix: string;
}

/**
 * The one place that names a queue in Redis (producers and workers both ask here): the queue's keys sit under
 * the service's prefix. On a cluster the prefix ends in the queue's own hash tag (`docstore:bull:{webhook-delivery}`):
 * BullMQ's scripts touch many keys of one queue at once, which a cluster runs only within one hash slot, and
 * queues with tags of their own spread over the nodes.
 */
export function queueAddress(connection: QueueConnection, queue: string): QueueAddress {
  return { name: queue, prefix: isCluster(connection) ? `${connection.redisPrefix}bull:{${queue}}` : `${connection.redisPrefix}bull` };
}

/**
 * A producer's connection fails fast while Redis is away (no offline queue): whoever adds
 * jobs learns at once and keeps its work in PostgreSQL.
 */
export function producerRedis(connection: QueueConnection): RedisClient {
  return connectRedis(connection, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, commandTimeout: 5000 });
}

/** A worker's connection blocks on Redis and waits it out (BullMQ requires maxRetriesPerRequest null). */
export function workerRedis(connection: QueueConnection): RedisClient {
  return connectRedis(connection, { maxRetriesPerRequest: null });
}

/**
 * Calls `onBack` whenever the connection is ready again after it was lost (not on the
 * first connect): the moment to look for jobs that a Redis restarted empty has lost.
 * A connection already ready when this is called counts as connected.
 */
export function onReconnect(redis: RedisClient, onBack: () => void): void {
  let connected = redis.status === 'ready';
  let lost = false;
  redis.on('ready', () => {
    if (connected && lost) onBack();
    connected = true;
    lost = false;
  });
  redis.on('close', () => {
    if (connected) lost = true;
  });
}

/** Calls `onReady` now if the connection is ready, and every time it becomes ready (first connect and each reconnect). */
export function onReady(redis: RedisClient, ready: () => void): void {
  if (redis.status === 'ready') ready();
  redis.on('ready', ready);
}
