import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { generateEncryptionKeys } from '@app/secrets';
import { configureApp, ExpressServerAdapter } from '@app/server';
import request from 'supertest';
import { ResponseCheck } from './response-check';
import { expectNoSessionState, workerDatabaseSettings } from './pooled-database';
import { testRedis } from './test-redis';

/** One key per test process, unless the run supplies ENCRYPTION_KEYS. */
const TEST_ENCRYPTION_KEYS = process.env.ENCRYPTION_KEYS || generateEncryptionKeys('test');

export interface TestApp {
  app: NestExpressApplication;
  /** Pass to supertest: `request(t.http)`. */
  http: Server;
  /** A provider of the app, e.g. to mint credentials. */
  get<T>(token: Type<T> | string | symbol): T;
  close(): Promise<void>;
}

/**
 * Boots an app exactly as main.ts does (same module, same HTTP adapter, same configureApp) against the
 * worker's own database, the run's Redis (or Redis Cluster: testRedis) and a key prefix of its own. `env` overrides
 * settings; a test that names a REDIS_URL of its own gets that server, never the run's cluster.
 * In a run through PgBouncer (TEST_DATABASE_POOLER=pgbouncer) the app runs with DATABASE_POOLER=transaction,
 * and `close()` fails if the app left session state on any of the pooler's server connections.
 */
export async function createTestApp(appModule: Type, env: Record<string, string> = {}): Promise<TestApp> {
  const redis = testRedis();
  const settings: Record<string, string> = {
    ...(await workerDatabaseSettings()),
    REDIS_URL: redis.url,
    REDIS_CLUSTER_NODES: env.REDIS_URL === undefined ? (redis.clusterNodes ?? '') : '',
    REDIS_PREFIX: `test:${process.env.TEST_RUN_ID}:${randomUUID().slice(0, 8)}:`,
    LOG_LEVEL: 'silent',
    DB_POOL_SIZE: '4',
    ENCRYPTION_KEYS: TEST_ENCRYPTION_KEYS,
    ...env,
  };
  const saved = Object.fromEntries(Object.keys(settings).map((k) => [k, process.env[k]]));
  Object.assign(process.env, settings);
  try {
    const app = await NestFactory.create<NestExpressApplication>(appModule, new ExpressServerAdapter(), {
      bodyParser: false,
      logger: false,
      abortOnError: false,
    });
    // Before configureApp's own middleware and the routes: it sees every answer's bytes as sent.
    const responses = new ResponseCheck();
    app.use(responses.middleware);
    configureApp(app, { title: 'test', description: 'test', version: '0' });
    // An app that fails to start lets go of what it opened, so the test process can exit.
    await app.init().catch(async (error: unknown) => {
      await app.close().catch(() => undefined);
      throw error;
    });
    return {
      app,
      http: app.getHttpServer(),
      get: <T>(token: Type<T> | string | symbol) => app.get<T>(token as Type<T>, { strict: false }),
      close: async () => {
        const problems = await responses.check(async () => (await request(app.getHttpServer()).get('/docs-json').expect(200)).body as object);
        await app.close();
        if (settings.DATABASE_POOLER === 'transaction') await expectNoSessionState(settings.DATABASE_URL);
        if (problems.length > 0) throw new Error(`Answers that do not match their OpenAPI schema:\n${problems.join('\n')}`);
      },
    };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
