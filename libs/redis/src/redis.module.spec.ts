import 'reflect-metadata';
import { createServer } from 'node:net';
import { Global, Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type Redis from 'ioredis';
import { RedisConfig } from './redis.config';
import { REDIS, RedisModule } from './redis.module';

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('RedisModule while Redis is away', () => {
  // Without a listener of its own, ioredis prints each failure's stack with console.error, outside the log.
  it('reports connection failures through the log, as throttled warnings', async () => {
    const config = Object.assign(new RedisConfig(), { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    @Global()
    @Module({ providers: [{ provide: RedisConfig, useValue: config }], exports: [RedisConfig] })
    class ConfigForTest {}
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const app = await Test.createTestingModule({ imports: [ConfigForTest, RedisModule] }).compile();
    try {
      const redis = app.get<Redis>(REDIS);
      // Two failed attempts (each followed by a reconnect; a listener for 'error' here would hide a
      // missing one in the module): the first is warned about, the second falls within the throttle.
      for (let failures = 0; failures < 2; failures++) await new Promise((r) => redis.once('reconnecting', r));
      expect(warned).toHaveBeenCalledTimes(1);
      expect(warned.mock.calls[0][0]).toMatch(/^redis: connect ECONNREFUSED/);
    } finally {
      await app.close();
      warned.mockRestore();
    }
  });
});
