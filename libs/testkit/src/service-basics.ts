import { InvalidConfigError, loadSettings, type SettingDefaults } from '@app/config';
import type { Type } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from './test-app';

export interface ServiceUnderTest {
  name: string;
  port: number;
  appModule: Type;
  /** Every feature config class the service runs with, and its defaults. */
  settings: ClassConstructor<object>[];
  defaults?: SettingDefaults;
  /** Settings the service requires besides DATABASE_URL (e.g. ENCRYPTION_KEYS). */
  requiredSettings?: Record<string, string>;
}

/**
 * What every service must do before its features: /health (200 while PostgreSQL answers,
 * Redis reported but not required), /health/live,
 * JSON 404s, OpenAPI, request ids, and settings validated with one sentence naming the bad one.
 */
export function describeServiceBasics(service: ServiceUnderTest): void {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  describe(`${service.name}: health, docs, errors`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp(service.appModule);
    });
    afterAll(() => t.close());

    it('GET /health answers 200 with database and redis up, without rate-limit headers', async () => {
      const res = await request(t.http).get('/health').expect(200);
      expect(res.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' }, redis: { status: 'up' } } });
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    });

    it('answers 404 JSON {message} on any other route and method', async () => {
      for (const [method, path] of [
        ['get', '/'],
        ['get', '/nope'],
        ['post', '/health'],
        ['get', '/api/v1/anything'],
        ['delete', '/docs-json'],
      ] as const) {
        const res = await request(t.http)[method](path);
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual({ message: expect.any(String) });
      }
    });

    it('serves the OpenAPI document at /docs-json and the UI at /docs', async () => {
      const json = await request(t.http).get('/docs-json').expect(200);
      expect(json.headers['content-type']).toMatch(/^application\/json/);
      expect(json.body.openapi).toMatch(/^3\./);
      expect(json.body.paths).toEqual(expect.any(Object));
      expect(json.body.paths['/health']).toBeUndefined();
      const html = await request(t.http).get('/docs').redirects(1).expect(200);
      expect(html.headers['content-type']).toMatch(/^text\/html/);
    });

    it('GET /metrics answers Prometheus text: requests by route pattern and status, labelled with the service, unlogged and unlimited', async () => {
      await request(t.http).get('/docs-json').expect(200);
      await request(t.http).get('/nope/123').expect(404);
      const res = await request(t.http).get('/metrics').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      const line = (route: string, status: number) =>
        res.text
          .split('\n')
          .find((l) => l.startsWith('http_request_duration_seconds_count{') && l.includes(`route="${route}"`) && l.includes(`status="${status}"`));
      expect(line('unmatched', 404)).toMatch(new RegExp(`service="${service.name}"`));
      expect(res.text).not.toContain('/nope/123');
      expect(res.text).toMatch(/^process_resident_memory_bytes\{/m);
      const json = await request(t.http).get('/docs-json');
      expect(json.body.paths['/metrics']).toBeUndefined();
    });

    it('returns an X-Request-Id, echoing a sane incoming one and replacing an unsafe one', async () => {
      const generated = await request(t.http).get('/health');
      expect(generated.headers['x-request-id']).toMatch(UUID);
      const other = await request(t.http).get('/health');
      expect(other.headers['x-request-id']).not.toBe(generated.headers['x-request-id']);

      const echoed = await request(t.http).get('/nope').set('X-Request-Id', 'trace-abc.123_XYZ');
      expect(echoed.headers['x-request-id']).toBe('trace-abc.123_XYZ');

      for (const unsafe of ['has space', 'a'.repeat(129), 'semi;colon', '']) {
        const res = await request(t.http).get('/health').set('X-Request-Id', unsafe);
        expect(res.headers['x-request-id']).toMatch(UUID);
      }
    });
  });

  describe(`${service.name}: health without Redis`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp(service.appModule, { REDIS_URL: 'redis://127.0.0.1:6399' });
    });
    // Closing with Redis unreachable must not wait for it (a relay run holding a row once kept the pool from closing).
    afterAll(() => t.close(), 60_000);

    it('GET /health still answers 200, reporting Redis down; /health/live answers 200', async () => {
      const res = await request(t.http).get('/health').expect(200);
      expect(res.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' }, redis: { status: 'down', message: expect.any(String) } } });
      await request(t.http).get('/health/live').expect(200, { status: 'ok' });
    });
  });

  describe(`${service.name}: health without PostgreSQL`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp(service.appModule);
    });
    afterAll(() => t.close());

    it('GET /health answers 503 with the failing indicator once the database is gone, /health/live still 200', async () => {
      await t.get(DataSource).destroy();
      const res = await request(t.http).get('/health').expect(503);
      expect(res.body).toMatchObject({ status: 'error', error: { database: { status: 'down' } } });
      await request(t.http).get('/health/live').expect(200);
    });
  });

  describe(`${service.name}: settings`, () => {
    const valid = { DATABASE_URL: 'postgres://u:p@db:5432/app', ...service.requiredSettings };

    it('loads valid settings with defaults', () => {
      const config = loadSettings(service.settings, valid, service.defaults);
      expect(config).toMatchObject({
        DATABASE_URL: valid.DATABASE_URL,
        PORT: service.port,
        REDIS_PREFIX: `${service.name}:`,
        BODY_LIMIT_BYTES: 5 * 1024 * 1024,
      });
      expect(loadSettings(service.settings, { ...valid, PORT: '8080', DB_POOL_SIZE: '5' }, service.defaults)).toMatchObject({ PORT: 8080, DB_POOL_SIZE: 5 });
    });

    it.each([
      [{ ...service.requiredSettings, DATABASE_URL: 'nope' }, 'DATABASE_URL'],
      [{ ...service.requiredSettings }, 'DATABASE_URL'],
      [{ ...service.requiredSettings, DATABASE_URL: 'mysql://db/x' }, 'DATABASE_URL'],
      [{ ...valid, REDIS_URL: 'http://redis' }, 'REDIS_URL'],
      [{ ...valid, PORT: 'eighty' }, 'PORT'],
      [{ ...valid, PORT: '70000' }, 'PORT'],
      [{ ...valid, LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
      [{ ...valid, BODY_LIMIT_BYTES: '10' }, 'BODY_LIMIT_BYTES'],
    ])('refuses %j naming %s', (env, setting) => {
      let error: unknown;
      try {
        loadSettings(service.settings, env, service.defaults);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InvalidConfigError);
      expect((error as Error).message).toContain(setting);
      expect((error as Error).message).toMatch(new RegExp(`^Setting ${setting} is invalid`));
    });
  });
}
