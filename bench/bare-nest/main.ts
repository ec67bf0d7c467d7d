import 'reflect-metadata';
import { Body, Controller, Get, HttpCode, Inject, Module, NotFoundException, Param, Post, Put, Query, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import { floorAdapter } from '../lib/floor-adapter';
import { bound, bulkItemsJson, gteFilter, type BenchSql } from '../lib/sql';

/**
 * Floor A: NestJS 11 on Express 5 with nothing but routing, body parsing and pg: no
 * auth, rate limit, logging, validation pipe or exception filter. Same routes and SQL
 * (BENCH_SQL, captured from the docstore) on a pg Pool of the same size. Express is set up
 * as the docstore sets it (no ETag hashing, simple query parser, no x-powered-by).
 */
const SQL: BenchSql = JSON.parse(process.env.BENCH_SQL!);
const POOL = Symbol('POOL');
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
  constructor(@Inject(POOL) private readonly pool: Pool) {}

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
  ],
})
class BareModule implements OnApplicationShutdown {
  constructor(@Inject(POOL) private readonly pool: Pool) {}
  async onApplicationShutdown() {
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
