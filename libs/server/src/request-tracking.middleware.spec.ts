import { createServer, get as httpGet, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Metrics } from '@app/observability';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { trackRequests } from './request-tracking.middleware';

describe('trackRequests', () => {
  let server: Server;
  let metrics: Metrics;
  const lines: Array<Record<string, unknown>> = [];

  /** A series of the latency histogram, read from the registry's JSON (the text form is checked below too). */
  async function series(name: string, labels: Record<string, string>): Promise<number | undefined> {
    const histogram = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'http_request_duration_seconds');
    return histogram?.values.find(
      (v) => (v as { metricName?: string }).metricName === name && Object.entries(labels).every(([k, value]) => String(v.labels[k]) === value),
    )?.value;
  }

  beforeAll(() => {
    metrics = new Metrics('test');
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(JSON.parse(chunk.toString())), done()) });
    const app = express();
    app.use(trackRequests(metrics, pino({ level: 'info' }, sink), 1000));
    const router = express.Router();
    router.get('/items/:id', (_req, res) => void res.status(200).json({ ok: true }));
    router.post('/items', (_req, res) => void res.status(422).json({ message: 'no' }));
    // Never answers: the client gives up first.
    router.get('/slow', () => undefined);
    app.use('/api', router);
    app.get('/health', (_req, res) => void res.json({ status: 'ok' }));
    server = createServer(app);
  });
  afterAll(async () => {
    metrics.onModuleDestroy();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (lines.length = 0));

  it('counts requests and their latency by method, route pattern and status, never by raw URL', async () => {
    await request(server).get('/api/items/1').expect(200);
    await request(server).get('/api/items/2').expect(200);
    await request(server).post('/api/items').expect(422);
    await request(server).get('/no/such/path/123').expect(404);
    const text = await metrics.render();
    expect(await series('http_request_duration_seconds_count', { method: 'GET', route: '/api/items/:id', status: '200' })).toBe(2);
    expect(await series('http_request_duration_seconds_count', { method: 'POST', route: '/api/items', status: '422' })).toBe(1);
    expect(await series('http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(await series('http_request_duration_seconds_bucket', { route: '/api/items/:id', le: '+Inf' })).toBe(2);
    expect(text).not.toContain('/api/items/1');
    expect(text).not.toContain('/no/such');
  });

  it('logs and counts a request whose client left before the answer as 499, "request aborted"', async () => {
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = httpGet({ host: '127.0.0.1', port, path: '/api/slow' });
    client.on('error', () => undefined);
    await new Promise((resolve) => server.once('request', resolve));
    client.destroy();
    while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lines[0]).toMatchObject({ msg: 'request aborted', url: '/api/slow', statusCode: 499 });
    expect(await series('http_request_duration_seconds_count', { method: 'GET', route: '/api/slow', status: '499' })).toBe(1);
  });

  it('gives each response an id and logs one line with it; a sane incoming X-Request-Id is kept', async () => {
    const fresh = await request(server).get('/api/items/7').expect(200);
    const kept = await request(server).get('/api/items/8').set('X-Request-Id', 'trace-42.a').expect(200);
    const forged = await request(server).get('/api/items/9').set('X-Request-Id', 'bad id\twith spaces').expect(200);
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(kept.headers['x-request-id']).toBe('trace-42.a');
    expect(forged.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.map((l) => [l.reqId, l.msg, l.url, l.statusCode])).toEqual([
      [fresh.headers['x-request-id'], 'request completed', '/api/items/7', 200],
      ['trace-42.a', 'request completed', '/api/items/8', 200],
      [forged.headers['x-request-id'], 'request completed', '/api/items/9', 200],
    ]);
  });

  it('counts probes but does not log them', async () => {
    await request(server).get('/health').expect(200);
    expect(lines).toEqual([]);
    expect(await series('http_request_duration_seconds_count', { route: '/health', status: '200' })).toBe(1);
  });
});
