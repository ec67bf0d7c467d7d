import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { Body, Controller, Get, Injectable, Module, Post, Req, type INestApplication } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { ConfigModule } from '@app/config';
import { AppExceptionFilter } from '@app/errors';
import { RateLimitConfig, RateLimitModule } from '@app/rate-limit';
import { RedisConfig, RedisModule } from '@app/redis';
import type { Request } from 'express';
import { Pool } from 'pg';
import request from 'supertest';
import {
  AcceptCredentials,
  authProviders,
  bearerHeader,
  CachedCredentialStore,
  credentialSource,
  mintCredential,
  namedHeader,
  opaqueKey,
  Public,
  RequestBodyConfig,
  StreamBody,
  type CredentialTable,
  type Principal,
} from '../src';

/**
 * The request gate through a small app of the lib's own: two credential stores on two
 * header forms (as ingest-push has: `apiKey` for sales, `Authorization: Bearer` for push),
 * each backed by its own PostgreSQL table, chosen per route.
 */
const schema = `auth_lib_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const pool = new Pool({ connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', max: 4 });

function tableOf(name: string): CredentialTable<Principal> {
  return {
    find: async (id) => {
      const { rows } = await pool.query<{ owner: string; secret_hash: Buffer; revoked: boolean }>(
        `SELECT owner, secret_hash, revoked FROM ${schema}.${name} WHERE id = $1`,
        [id],
      );
      const row = rows[0];
      return row ? { secretHash: row.secret_hash, active: !row.revoked, principal: { credentialId: `${name}:${id}`, ownerId: row.owner } } : null;
    },
  };
}

@Injectable()
class ApiKeyStore extends CachedCredentialStore<Principal> {
  constructor() {
    super(tableOf('api_keys'), { name: 'ApiKeyStore', cacheTtlMs: 0, lastUsedFlushMs: 1000 });
  }
}

@Injectable()
class PushTokenStore extends CachedCredentialStore<Principal> {
  constructor() {
    super(tableOf('push_tokens'), { name: 'PushTokenStore', cacheTtlMs: 0, lastUsedFlushMs: 1000 });
  }
}

@Controller()
class GateController {
  @Get('sales')
  @AcceptCredentials('apiKey')
  sales(@Req() req: Request) {
    return req.principal;
  }

  @Post('push')
  @AcceptCredentials('push')
  push(@Req() req: Request, @Body() body: unknown) {
    return { principal: req.principal, body: body ?? null };
  }

  @Post('upload')
  @AcceptCredentials('apiKey')
  @StreamBody({ limit: 8 * 1024 * 1024 })
  async upload(@Req() req: Request) {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    return { bytes, body: req.body ?? null };
  }

  @Post('either')
  either(@Req() req: Request) {
    return req.principal;
  }

  @Public()
  @Post('public')
  open(@Body() body: unknown) {
    return { body: body ?? null };
  }
}

@Module({
  imports: [ConfigModule.forRoot({ features: [RedisConfig, RateLimitConfig, RequestBodyConfig] }), RedisModule, RateLimitModule],
  controllers: [GateController],
  providers: [
    ApiKeyStore,
    PushTokenStore,
    { provide: APP_FILTER, useClass: AppExceptionFilter },
    ...authProviders({
      sources: {
        apiKey: credentialSource({ header: namedHeader('apiKey'), parse: opaqueKey('ik'), store: ApiKeyStore }),
        push: credentialSource({ header: bearerHeader(), parse: opaqueKey('pt'), store: PushTokenStore }),
      },
    }),
  ],
})
class GateTestModule {}

let app: INestApplication;
let http: Server;
let apiKey: string;
let pushToken: string;
let revokedKey: string;
const owner = randomUUID();

async function insert(table: string, prefix: string, revoked = false): Promise<string> {
  const { id, plainText: key, secretHash } = mintCredential({ prefix });
  await pool.query(`INSERT INTO ${schema}.${table} (id, owner, secret_hash, revoked) VALUES ($1, $2, $3, $4)`, [id, owner, secretHash, revoked]);
  return key;
}

beforeAll(async () => {
  await pool.query(`CREATE SCHEMA ${schema}`);
  for (const table of ['api_keys', 'push_tokens']) {
    await pool.query(`CREATE TABLE ${schema}.${table} (id text PRIMARY KEY, owner text NOT NULL, secret_hash bytea NOT NULL, revoked boolean NOT NULL)`);
  }
  apiKey = await insert('api_keys', 'ik');
  revokedKey = await insert('api_keys', 'ik', true);
  pushToken = await insert('push_tokens', 'pt');
  const env = {
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_CLUSTER_NODES: process.env.TEST_REDIS_CLUSTER_NODES ?? '',
    REDIS_PREFIX: `test:authlib:${randomUUID().slice(0, 8)}:`,
    BODY_LIMIT_BYTES: '65536',
    BODY_MAX_JSON_VALUES: '1000',
    BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL: '100000',
    BODY_IN_FLIGHT_BYTES: '150000',
  };
  Object.assign(process.env, env);
  const nest = await NestFactory.create<NestExpressApplication>(GateTestModule, { bodyParser: false, logger: false });
  await nest.init();
  app = nest;
  http = nest.getHttpServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await app?.close();
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

describe('credential sources per route', () => {
  it('accepts each store only on its own header and route', async () => {
    const sales = await request(http).get('/sales').set('apiKey', apiKey).expect(200);
    expect(sales.body).toEqual({ credentialId: expect.stringMatching(/^api_keys:/), ownerId: owner });
    await request(http).get('/sales').set('Authorization', `Bearer ${pushToken}`).expect(401);
    await request(http).get('/sales').set('apiKey', pushToken).expect(401);
    const push = await request(http).post('/push').set('Authorization', `Bearer ${pushToken}`).send({ a: 1 }).expect(201);
    expect(push.body).toEqual({ principal: { credentialId: expect.stringMatching(/^push_tokens:/), ownerId: owner }, body: { a: 1 } });
    await request(http).post('/push').set('apiKey', apiKey).send({ a: 1 }).expect(401);
  });

  it('tries every source on a route without @AcceptCredentials', async () => {
    expect((await request(http).post('/either').set('apiKey', apiKey).expect(201)).body.credentialId).toMatch(/^api_keys:/);
    expect((await request(http).post('/either').set('Authorization', `Bearer ${pushToken}`).expect(201)).body.credentialId).toMatch(/^push_tokens:/);
  });

  it('refuses a wrong secret, a revoked key, a malformed key and no key, with the 401 body and rate-limit headers', async () => {
    const wrongSecret = apiKey.replace(/_[A-Za-z0-9]+$/, '_' + 'x'.repeat(40));
    for (const value of [wrongSecret, revokedKey, 'not-a-key', `ik_${randomUUID()}_abc`]) {
      const res = await request(http).get('/sales').set('apiKey', value).expect(401);
      expect(res.body).toEqual({ error: 'Unauthorized', message: 'The credential is invalid, expired or revoked.' });
      expect(res.headers['x-ratelimit-limit']).toBe('60');
    }
    expect((await request(http).get('/sales').expect(401)).body.message).toBe('Authentication is required.');
  });
});

describe('bodies are read after authentication', () => {
  it('answers 401, not 400, to malformed JSON without credentials, and 400 with them', async () => {
    await request(http).post('/push').set('Content-Type', 'application/json').send('{"a":').expect(401);
    const res = await request(http).post('/push').set('Authorization', `Bearer ${pushToken}`).set('Content-Type', 'application/json').send('{"a":').expect(400);
    expect(res.body).toEqual({ message: 'The request body is not valid JSON.' });
    expect(res.headers['x-ratelimit-remaining']).toEqual(expect.any(String));
  });

  it('refuses a declared oversized body from its Content-Length, before reading it', async () => {
    const big = JSON.stringify({ s: 'x'.repeat(70_000) });
    const authed = await request(http).post('/push').set('Authorization', `Bearer ${pushToken}`).set('Content-Type', 'application/json').send(big).expect(413);
    expect(authed.headers['x-ratelimit-limit']).toBe('1000');
    await request(http).post('/push').set('Content-Type', 'application/json').send(big).expect(413);
  });

  it('bounds the values a JSON body may hold', async () => {
    const res = await request(http)
      .post('/push')
      .set('Authorization', `Bearer ${pushToken}`)
      .send({ many: Array(1000).fill(0) })
      .expect(413);
    expect(res.body.message).toContain('1000 values');
    await request(http)
      .post('/push')
      .set('Authorization', `Bearer ${pushToken}`)
      .send({ many: Array(998).fill(0) })
      .expect(201);
  });

  it('answers 415 to any body that is not JSON, and accepts an empty body without a type', async () => {
    const auth = { Authorization: `Bearer ${pushToken}` };
    await request(http).post('/push').set(auth).set('Content-Type', 'text/plain').send('{"a":1}').expect(415);
    await request(http).post('/push').set(auth).type('form').send({ a: '1' }).expect(415);
    const multipart = await request(http).post('/push').set(auth).field('a', '1').expect(415);
    expect(multipart.body).toEqual({ message: expect.stringContaining('application/json') });
    await request(http).post('/push').set(auth).set('Content-Type', 'application/merge-patch+json').send('{"a":1}').expect(201);
    expect((await request(http).post('/push').set(auth).expect(201)).body.body).toBeNull();
  });

  it('hands a stream route the untouched request, past the JSON limit, and still refuses a declared length over its own', async () => {
    const payload = Buffer.alloc(3 * 1024 * 1024, 'a');
    const res = await request(http).post('/upload').set('apiKey', apiKey).set('Content-Type', 'application/json').send(payload.toString()).expect(201);
    expect(res.body).toEqual({ bytes: payload.length, body: null });
    const csv = await request(http).post('/upload').set('apiKey', apiKey).set('Content-Type', 'text/csv').send('a,b\n1,2\n').expect(201);
    expect(csv.body.bytes).toBe(8);
    await request(http)
      .post('/upload')
      .set('apiKey', apiKey)
      .set('Content-Type', 'text/csv')
      .set('Content-Length', String(9 * 1024 * 1024))
      .send('x')
      .expect(413);
    await request(http).post('/upload').set('Content-Type', 'text/csv').send('a,b\n').expect(401);
  });

  it('parses public routes too, with the same checks', async () => {
    expect((await request(http).post('/public').send({ a: 1 }).expect(201)).body).toEqual({ body: { a: 1 } });
    await request(http).post('/public').set('Content-Type', 'text/plain').send('x').expect(415);
    await request(http).post('/public').send({ __proto__x: 1, bad: 'a\u0000b' }).expect(422);
  });
});

/** A request to `server` that declares `declared` bytes (or is chunked) and sends `first` of them; the answer comes as the raw text. */
function partialBody(server: Server, path: string, headers: Record<string, string>, declared: number | 'chunked', first: string) {
  const { port } = server.address() as AddressInfo;
  const length = declared === 'chunked' ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(declared) };
  const all = { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...length, ...headers };
  const socket: Socket = connect(port, '127.0.0.1');
  socket.write(
    `POST ${path} HTTP/1.1\r\n${Object.entries(all)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`,
  );
  socket.write(declared === 'chunked' ? `${first.length.toString(16)}\r\n${first}\r\n` : first);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('error', () => undefined);
  const started = Date.now();
  const answer = new Promise<string>((resolve) =>
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\r\n\r\n')) resolve(text);
    }),
  );
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  return { socket, answer, closed, status: async () => Number(/^HTTP\/1\.1 (\d{3})/.exec(await answer)?.[1]) };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

describe('bodies in flight are bounded', () => {
  const push = () => ({ Authorization: `Bearer ${pushToken}` });
  const big = (n: number) => ({ s: 'x'.repeat(n) });

  it('refuses a large body without credentials with 401 at once, without waiting for it', async () => {
    const anonymous = partialBody(http, '/push', {}, 60_000, '[1');
    expect(await anonymous.status()).toBe(401);
    anonymous.socket.destroy();
  });

  it('answers 503 with Retry-After past the per-credential bytes, then the process bytes, and frees them when the bodies go', async () => {
    const first = partialBody(http, '/push', push(), 60_000, '[1');
    await until(async () => (await request(http).post('/push').set(push()).send(big(50_000))).status === 503);
    await request(http).post('/push').set(push()).send({ a: 1 }).expect(201);
    const refused = await request(http).post('/push').set(push()).send(big(50_000)).expect(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body).toEqual({ message: expect.stringContaining('(BODY_IN_FLIGHT_BYTES_PER_CREDENTIAL)'), retry_after: 1 });
    // Another credential has its own share, until the process's bytes run out; a public route counts its client address.
    const second = partialBody(http, '/either', { apiKey }, 60_000, '[1');
    await until(async () => (await request(http).post('/public').send(big(40_000))).status === 503);
    const busy = await request(http).post('/public').send(big(40_000)).expect(503);
    expect(busy.body.message).toContain('(BODY_IN_FLIGHT_BYTES)');
    first.socket.destroy();
    second.socket.destroy();
    await until(async () => (await request(http).post('/push').set(push()).send(big(50_000))).status === 201);
    await request(http).post('/public').send(big(40_000)).expect(201);
  });

  it('counts a chunked body as it arrives: past the share it is answered 503 and its connection closed', async () => {
    const held = partialBody(http, '/push', push(), 60_000, '[1');
    await until(async () => (await request(http).post('/push').set(push()).send(big(50_000))).status === 503);
    const chunked = partialBody(http, '/push', push(), 'chunked', `[${'1,'.repeat(25_000)}`);
    expect(await chunked.status()).toBe(503);
    expect(await chunked.answer).toMatch(/\r\nconnection: close\r\n/i);
    await chunked.closed;
    held.socket.destroy();
  });

  describe('with a 1 s window and 2 s in all', () => {
    let fast: INestApplication;
    let server: Server;
    beforeAll(async () => {
      Object.assign(process.env, { BODY_TIMEOUT_SECONDS: '1', BODY_MAX_SECONDS: '2' });
      fast = await NestFactory.create<NestExpressApplication>(GateTestModule, { bodyParser: false, logger: false });
      await fast.init();
      server = fast.getHttpServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => fast?.close());

    it('cuts a body that stalls after most of it came one window later, with 408, and closes the connection', async () => {
      const stalled = partialBody(server, '/push', push(), 60_000, `[${'1,'.repeat(29_000)}`);
      expect(await stalled.status()).toBe(408);
      expect(await stalled.answer).toContain('BODY_TIMEOUT_SECONDS');
      expect(await stalled.closed).toBeLessThan(1000 + 250 + 1000);
    });

    it('cuts a body above the minimum rate once it has taken BODY_MAX_SECONDS', async () => {
      const steady = partialBody(server, '/push', push(), 60_000, '[');
      const timer = setInterval(() => steady.socket.write('1,'.repeat(500)), 200);
      expect(await steady.status()).toBe(408);
      clearInterval(timer);
      expect(await steady.answer).toContain('BODY_MAX_SECONDS');
      expect(await steady.closed).toBeLessThan(2000 + 250 + 1000);
    });
  });
});
