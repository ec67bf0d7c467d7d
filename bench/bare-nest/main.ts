import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import {
  Body, ConflictException, Controller, Get, HttpCode, Inject, Module, NotFoundException, Optional, Param, Post, Put, Query, type OnApplicationShutdown,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Queue, Worker } from 'bullmq';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { ENGINE_JOB_OPTIONS, floorAgent, postDelivery } from '../lib/deliver';
import { floorAdapter } from '../lib/floor-adapter';
import { bound, bulkItemsJson, gteFilter, type BenchSql } from '../lib/sql';

/**
 * Floor A: NestJS 11 on Express 5 with nothing but routing, body parsing and pg: no
 * auth, rate limit, logging, validation pipe or exception filter. Same routes and SQL
 * (BENCH_SQL, captured from the docstore) on a pg Pool of the same size. Express is set up
 * as the docstore sets it (no ETag hashing, simple query parser, no x-powered-by).
 *
 * With FLOOR_DELIVER_TO (bench/webhooks.ts), a create also delivers its event the bare way:
 * once the row is written, one BullMQ job per event (the engines' job options), and a Worker
 * in this process (concurrency FLOOR_CONCURRENCY, default 64) POSTs its body there; no
 * outbox, attempt log, signing or per-receiver window.
 */
const SQL: BenchSql = JSON.parse(process.env.BENCH_SQL!);
const POOL = Symbol('POOL');
const DELIVERY = Symbol('DELIVERY');
const DELIVER_TO = process.env.FLOOR_DELIVER_TO || '';

/** The bare delivery of FLOOR_DELIVER_TO: a queue, and its worker in this process. */
class Delivery {
  private readonly connections = [0, 1].map(() => new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null }));
  private readonly queue = new Queue<{ id: string; body: string }>('floor-deliver', { connection: this.connections[0], prefix: process.env.FLOOR_PREFIX });
  private readonly worker = new Worker<{ id: string; body: string }>('floor-deliver', (job) => postDelivery(DELIVER_TO, job.data.id, job.data.body), {
    connection: this.connections[1],
    prefix: process.env.FLOOR_PREFIX,
    concurrency: Number(process.env.FLOOR_CONCURRENCY) || 64,
  });

  async add(owner: string, row: Record<string, unknown>): Promise<void> {
    const id = randomUUID();
    const body = JSON.stringify({ id, type: 'document.created', created_at: row.created_at, client_id: owner, data: row });
    await this.queue.add('deliver', { id, body }, ENGINE_JOB_OPTIONS);
  }

  async close(): Promise<void> {
    await this.worker.close();
    await this.queue.obliterate({ force: true }).catch(() => undefined);
    await this.queue.close();
    await floorAgent.close();
    this.connections.forEach((c) => c.disconnect());
  }
}
const DOC = 'api/v1/client/:client/:environment/context/:context/type/:type';

interface ScopeParams {
  client: string;
  environment: string;
  context: string;
  type: string;
  key?: string;
}

const scope = (p: ScopeParams): unknown[] => [p.client.toLowerCase(), p.environment, p.context, p.type];

@Controller(DOC)
class DocumentsController {
  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Optional() @Inject(DELIVERY) private readonly delivery?: Delivery,
  ) {}

  @Get()
  async list(@Param() p: ScopeParams, @Query() q: Record<string, string>) {
    const filter = gteFilter(q)!;
    const perPage = Number(q.per_page ?? 15);
    const offset = (Number(q.page ?? 1) - 1) * perPage;
    const params = [...scope(p), [filter.field], filter.value];
    const [rows, count] = await Promise.all([
      this.pool.query(bound(SQL.listRows, [...params, perPage, offset])),
      this.pool.query(bound(SQL.listCount, params)),
    ]);
    return { data: rows.rows, total: count.rows[0].total, per_page: perPage };
  }

  @Post('bulk')
  @HttpCode(200)
  async bulk(@Param() p: ScopeParams, @Body() body: { documents: Array<{ key: string; data: unknown }> }) {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(bound(SQL.schema, scope(p)));
      const { rows } = await client.query(bound(SQL.bulk, [...scope(p), bulkItemsJson(body.documents)]));
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
    const { rows } = await this.pool.query(bound(SQL.create, [...scope(p), p.key, body.data, null]));
    if (!rows[0]) throw new ConflictException();
    // The statement also counts the events it recorded for webhooks (none here: the floor registers none).
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
    const { rows } = await this.pool.query(bound(SQL.put, [...scope(p), p.key, body.data, null, null]));
    if (!rows[0]) throw new NotFoundException();
    return rows[0];
  }
}

@Module({
  controllers: [DocumentsController],
  providers: [
    {
      provide: POOL,
      useFactory: async () => {
        const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
        await pool.query('SELECT 1');
        return pool;
      },
    },
    ...(DELIVER_TO ? [{ provide: DELIVERY, useFactory: () => new Delivery() }] : []),
  ],
})
class BareModule implements OnApplicationShutdown {
  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Optional() @Inject(DELIVERY) private readonly delivery?: Delivery,
  ) {}
  async onApplicationShutdown() {
    await this.delivery?.close();
    await this.pool.end();
  }
}

async function main() {
  const app = await NestFactory.create<NestExpressApplication>(BareModule, floorAdapter(), { logger: false, bodyParser: false });
  app.set('etag', false);
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.useBodyParser('json', { limit: 5 * 1024 * 1024 });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}

void main();
