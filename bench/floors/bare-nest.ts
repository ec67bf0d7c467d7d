import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  Inject,
  Module,
  NotFoundException,
  Optional,
  Param,
  Post,
  Put,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { Agent, Pool as HttpPool, request } from 'undici';
import { ENGINE_JOB_OPTIONS } from '../lib/harness';
import { bound, bulkItemsJson, TRACE_OFF, type BenchSql } from '../lib/sql';

/**
 * The bare NestJS floors: NestJS 11 on Express 5 with routing, body parsing and pg only (no
 * auth, rate limit, logging, validation or exception filter), on a pg Pool of the service's
 * size (DB_POOL_SIZE). BENCH_FLOOR picks the service it stands for:
 *   docstore  GET/PUT/bulk/create with the docstore's own SQL (BENCH_SQL, captured from the build);
 *             with FLOOR_DELIVER_TO, each create is delivered the bare way: one BullMQ job per
 *             event and an in-process Worker POSTing its body there (no outbox, attempt log or signing);
 *   gateway   a text message: the contact's opt-out read first (one prepared SELECT by primary key, as any
 *             service sending on the network must: it refuses and bans senders to opted-out contacts), then
 *             the same POST to the same fake network on the same undici pool, and the same prepared insert
 *             of the message row.
 * BENCH_FLOOR_PROTOTYPES=1 gives it the services' own HTTP adapter (libs/server, from dist/).
 */
const POOL = Symbol('POOL');
const DELIVERY = Symbol('DELIVERY');
const HTTP = Symbol('HTTP');
const env = process.env;

// ---------------------------------------------------------------------------------------
// Docstore

const SQL: BenchSql = env.BENCH_SQL ? JSON.parse(env.BENCH_SQL) : ({} as BenchSql);

/** FLOOR_DELIVER_TO's queue and worker, with the engine's concurrency and connection ceiling. */
class Delivery {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: Number(env.FLOOR_CONNECTIONS) || null });
  private readonly redis = [0, 1].map(() => new Redis(env.REDIS_URL!, { maxRetriesPerRequest: null }));
  private readonly queue = new Queue<{ id: string; body: string }>('floor-deliver', { connection: this.redis[0], prefix: env.FLOOR_PREFIX });
  private readonly worker = new Worker<{ id: string; body: string }>(
    'floor-deliver',
    async (job) => {
      const res = await request(env.FLOOR_DELIVER_TO!, {
        method: 'POST',
        dispatcher: this.agent,
        headers: { 'content-type': 'application/json', 'webhook-id': job.data.id },
        body: job.data.body,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`receiver answered ${res.statusCode}`);
    },
    { connection: this.redis[1], prefix: env.FLOOR_PREFIX, concurrency: Number(env.FLOOR_CONCURRENCY) },
  );

  async add(owner: string, row: Record<string, unknown>): Promise<void> {
    const id = randomUUID();
    const body = JSON.stringify({ id, type: 'document.created', created_at: row.created_at, client_id: owner, data: row });
    await this.queue.add('deliver', { id, body }, ENGINE_JOB_OPTIONS);
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.close();
    await this.agent.close();
    this.redis.forEach((c) => c.disconnect());
  }
}

interface ScopeParams {
  client: string;
  environment: string;
  context: string;
  type: string;
  key: string;
}

const scope = (p: ScopeParams): unknown[] => [p.client.toLowerCase(), p.environment, p.context, p.type];

@Controller('api/v1/client/:client/:environment/context/:context/type/:type')
class DocumentsController {
  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Optional() @Inject(DELIVERY) private readonly delivery?: Delivery,
  ) {}

  @Post('bulk')
  @HttpCode(200)
  async bulk(@Param() p: ScopeParams, @Body() body: { documents: Array<{ key: string; data: unknown }> }) {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(bound(SQL.schema, scope(p)));
      const { rows } = await client.query(bound(SQL.bulk, [...scope(p), bulkItemsJson(body.documents), TRACE_OFF]));
      await client.query('COMMIT');
      const position = new Map(body.documents.map((d, i) => [d.key, i]));
      return rows.sort((a, b) => position.get(a.key)! - position.get(b.key)!);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  @Post(':key')
  @HttpCode(201)
  async create(@Param() p: ScopeParams, @Body() body: { data: unknown }) {
    const { rows } = await this.pool.query(bound(SQL.create, [...scope(p), p.key, body.data, null, TRACE_OFF]));
    if (!rows[0]) throw new ConflictException();
    // The statement also counts the webhook events it recorded (none: the floor registers no webhook).
    const { webhook_engine_deliveries: _count, ...row } = rows[0];
    await this.delivery?.add(p.client, row);
    return row;
  }

  @Get(':key')
  async get(@Param() p: ScopeParams) {
    const { rows } = await this.pool.query(bound(SQL.get, [...scope(p), p.key]));
    if (!rows[0]) throw new NotFoundException();
    return rows[0];
  }

  @Put(':key')
  async put(@Param() p: ScopeParams, @Body() body: { data: unknown }) {
    const { rows } = await this.pool.query(bound(SQL.put, [...scope(p), p.key, body.data, null, null, TRACE_OFF]));
    if (!rows[0]) throw new NotFoundException();
    const { webhook_engine_deliveries: _count, ...row } = rows[0];
    return row;
  }
}

// ---------------------------------------------------------------------------------------
// Gateway

@Controller('api/Messages')
class MessagesController {
  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Inject(HTTP) private readonly http: HttpPool,
  ) {}

  @Post()
  @HttpCode(200)
  async send(@Body() body: { to: string; type: string }) {
    const optedOut = await this.pool.query({
      name: 'gateway.opted_out',
      text: 'SELECT 1 FROM gateway.opt_outs WHERE account_id = $1 AND wa_id = $2',
      values: [env.BENCH_ACCOUNT_ID, body.to.replace(/\D/g, '')],
    });
    if (optedOut.rowCount) throw new BadRequestException('the contact opted out');
    const answer = await this.http.request({
      method: 'POST',
      path: `/v23.0/${env.BENCH_PHONE_ID}/messages`,
      headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const sent = (await answer.body.json()) as { contacts: { wa_id: string }[]; messages: { id: string }[] };
    const id = `${sent.messages[0].id}.${randomBytes(6).toString('hex')}`;
    await this.pool.query({
      name: 'gateway.insert_message',
      text: `WITH m AS (INSERT INTO gateway.messages (id, phone_ref, "to", wa_id, type, status, payload) VALUES ($1, $2, $3, $4, $5, 'accepted', $6) RETURNING id)
       INSERT INTO gateway.message_statuses (message_id, status) SELECT id, 'accepted' FROM m`,
      values: [id, env.BENCH_PHONE_REF, body.to, sent.contacts[0].wa_id, body.type, body],
    });
    return { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: sent.contacts[0].wa_id }], messages: [{ id }] };
  }
}

// ---------------------------------------------------------------------------------------

const gateway = env.BENCH_FLOOR === 'gateway';

@Module({
  controllers: [gateway ? MessagesController : DocumentsController],
  providers: [
    { provide: POOL, useFactory: () => new Pool({ connectionString: env.DATABASE_URL, max: Number(env.DB_POOL_SIZE) }) },
    // The gateway's cloud provider pool: CLOUD_API_CONNECTIONS keep-alive connections, no pipelining.
    ...(gateway
      ? [
          {
            provide: HTTP,
            useFactory: () =>
              new HttpPool(env.CLOUD_API_BASE_URL!, { connections: Number(env.CLOUD_API_CONNECTIONS), keepAliveTimeout: 30_000, pipelining: 1 }),
          },
        ]
      : []),
    ...(env.FLOOR_DELIVER_TO ? [{ provide: DELIVERY, useFactory: () => new Delivery() }] : []),
  ],
})
class FloorModule implements OnApplicationShutdown {
  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Optional() @Inject(DELIVERY) private readonly delivery?: Delivery,
    @Optional() @Inject(HTTP) private readonly http?: HttpPool,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.delivery?.close(), this.http?.close(), this.pool.end()]);
  }
}

/** Nest's stock ExpressAdapter, or with BENCH_FLOOR_PROTOTYPES=1 the services' own (libs/server). */
function adapter(): ExpressAdapter {
  if (env.BENCH_FLOOR_PROTOTYPES !== '1') return new ExpressAdapter();
  const built = ['docstore', 'gateway']
    .map((app) => path.resolve(__dirname, `../../dist/${app}/libs/server/src/express-server.adapter.js`))
    .find((f) => fs.existsSync(f));
  if (!built) throw new Error('BENCH_FLOOR_PROTOTYPES=1 needs a built service');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return new (require(built).ExpressServerAdapter as new () => ExpressAdapter)();
}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, adapter(), { logger: false, bodyParser: gateway });
  // Express as the services set it up.
  app.set('etag', false);
  app.disable('x-powered-by');
  if (!gateway) {
    app.set('query parser', 'simple');
    app.useBodyParser('json', { limit: 5 * 1024 * 1024 });
  }
  app.enableShutdownHooks();
  await app.listen(Number(env.PORT), '127.0.0.1');
}

void main();
