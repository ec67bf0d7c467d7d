import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import Redis, { Cluster } from 'ioredis';
import { connectRedis, redisTarget } from './redis-client';
import { RedisConfig } from './redis.config';

describe('connectRedis', () => {
  it('opens a Redis Cluster client when cluster nodes are named, with the URL credentials and TLS on every node', () => {
    const config = Object.assign(new RedisConfig(), {
      REDIS_URL: 'rediss://app:p%40ss@ignored:6379',
      REDIS_CLUSTER_NODES: 'redis-1.internal:7000,10.0.0.2:7001',
    });
    const client = connectRedis(redisTarget(config), { keyPrefix: 'docstore:', enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 2000 });
    client.on('error', () => undefined);
    try {
      expect(client).toBeInstanceOf(Cluster);
      const cluster = client as Cluster;
      expect((cluster as unknown as { startupNodes: unknown }).startupNodes).toEqual([
        { host: 'redis-1.internal', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ]);
      expect(cluster.options).toMatchObject({
        keyPrefix: 'docstore:',
        enableOfflineQueue: false,
        redisOptions: { username: 'app', password: 'p@ss', tls: {}, maxRetriesPerRequest: 1, commandTimeout: 2000 },
      });
    } finally {
      client.disconnect();
    }
  });

  it('opens one connection to REDIS_URL otherwise', () => {
    const client = connectRedis(redisTarget(new RedisConfig()), { maxRetriesPerRequest: 1 });
    client.on('error', () => undefined);
    try {
      expect(client).toBeInstanceOf(Redis);
      expect((client as Redis).options).toMatchObject({ host: '127.0.0.1', port: 6379 });
    } finally {
      client.disconnect();
    }
  });
});

describe('REDIS_CLUSTER_NODES', () => {
  const problems = (value: string) => validateSync(plainToInstance(RedisConfig, { REDIS_CLUSTER_NODES: value })).map((e) => e.property);

  it('takes host:port pairs separated by commas, or nothing', () => {
    expect(problems('')).toEqual([]);
    expect(problems('127.0.0.1:7000,redis-2.internal:7001')).toEqual([]);
    expect(problems('127.0.0.1')).toEqual(['REDIS_CLUSTER_NODES']);
    expect(problems('redis://127.0.0.1:7000')).toEqual(['REDIS_CLUSTER_NODES']);
  });
});
