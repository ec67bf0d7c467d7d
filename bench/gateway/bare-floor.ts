import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Body, Controller, HttpCode, Inject, Module, Post, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import { Pool as HttpPool } from 'undici';
import { floorAdapter } from '../lib/floor-adapter';

/**
 * The floor: NestJS 11 on Express with routing and JSON body parsing only. Per request it
 * posts the same body to the same fake network with the same HTTP client (an undici
 * keep-alive pool) and inserts the same message row as the gateway, on a pg pool of the same size.
 */
const POOL = Symbol('POOL');
const HTTP = Symbol('HTTP');
const PHONE_REF = process.env.BENCH_PHONE_REF!;
const PHONE_ID = process.env.BENCH_PHONE_ID!;

@Controller('api/Messages')
class MessagesController {
  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Inject(HTTP) private readonly http: HttpPool,
  ) {}

  @Post()
  @HttpCode(200)
  async send(@Body() body: { to: string; type: string }) {
    const answer = await this.http.request({
      method: 'POST',
      path: `/v23.0/${PHONE_ID}/messages`,
      headers: { authorization: 'Bearer bench', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const sent = (await answer.body.json()) as { contacts: { wa_id: string }[]; messages: { id: string }[] };
    const id = `${sent.messages[0].id}.${randomBytes(6).toString('hex')}`;
    // Prepared, as the gateway prepares its insert: the same statement the same way on the wire.
    await this.pool.query({
      name: 'gateway.insert_message',
      text: `WITH m AS (INSERT INTO gateway.messages (id, phone_ref, "to", wa_id, type, status, payload) VALUES ($1, $2, $3, $4, $5, 'accepted', $6) RETURNING id)
       INSERT INTO gateway.message_statuses (message_id, status) SELECT id, 'accepted' FROM m`,
      values: [id, PHONE_REF, body.to, sent.contacts[0].wa_id, body.type, body],
    });
    return { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: sent.contacts[0].wa_id }], messages: [{ id }] };
  }
}

@Module({
  controllers: [MessagesController],
  providers: [
    { provide: POOL, useFactory: () => new Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) }) },
    { provide: HTTP, useFactory: () => new HttpPool(process.env.CLOUD_API_BASE_URL!, { connections: 64, keepAliveTimeout: 30_000, pipelining: 1 }) },
  ],
})
class FloorModule implements OnApplicationShutdown {
  constructor(
    @Inject(POOL) private readonly pool: Pool,
    @Inject(HTTP) private readonly http: HttpPool,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.pool.end(), this.http.close()]);
  }
}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(FloorModule, floorAdapter(), { logger: false });
  app.set('etag', false);
  app.disable('x-powered-by');
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}

void main();
