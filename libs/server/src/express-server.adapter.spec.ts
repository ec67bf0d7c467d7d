import { once } from 'node:events';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { request } from 'undici';
import { ExpressServerAdapter } from './express-server.adapter';

describe('ExpressServerAdapter', () => {
  let server: Server;
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it("creates requests and responses that already carry Express's prototypes, and Express serves them as usual", async () => {
    const adapter = new ExpressServerAdapter();
    const app = adapter.getInstance<Express>();
    const seen: boolean[] = [];
    app.get('/echo', (req, res) => {
      res.set('X-Echo', req.get('x-in') ?? '').json({ path: req.path, query: req.query });
    });
    adapter.initHttpServer({});
    server = adapter.getHttpServer();
    // Runs before Express: what node:http built, before Express sets any prototype.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
      seen.push(req instanceof IncomingMessage && res instanceof ServerResponse);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;

    const answer = await fetch(`http://127.0.0.1:${port}/echo?a=1`, { headers: { 'x-in': 'hello' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-echo')).toBe('hello');
    expect(await answer.json()).toEqual({ path: '/echo', query: { a: '1' } });
    expect(seen).toEqual([true, true]);
  });

  it("answers a handler's object with the status, headers and bytes of Express's res.json, and leaves other answers to it", async () => {
    const adapter = new ExpressServerAdapter();
    const app = adapter.getInstance<Express>();
    const body = { name: 'Mug ☕', tags: ['a', 'b'], nested: { n: 1.5, at: new Date(0) }, none: null };
    app.all('/direct', (req, res) => {
      res.setHeader('ETag', '"3"');
      if (req.query.type) res.type(String(req.query.type));
      adapter.reply(res, body, 201);
    });
    app.all('/express', (req, res) => {
      res.setHeader('ETag', '"3"');
      if (req.query.type) res.type(String(req.query.type));
      res.status(201).json(body);
    });
    app.get('/fresh', (_req, res) => {
      res.setHeader('ETag', '"3"');
      adapter.reply(res, body, 200);
    });
    adapter.initHttpServer({});
    server = adapter.getHttpServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    // undici's request, not fetch: fetch adds cache headers to a conditional request.
    const answer = async (path: string, init: { method?: 'HEAD' | 'POST'; body?: string; headers?: Record<string, string> } = {}) => {
      const res = await request(`http://127.0.0.1:${port}${path}`, init);
      const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)));
      return { status: res.statusCode, headers, text: await res.body.text() };
    };

    for (const [query, init] of [
      ['', {}],
      ['', { method: 'HEAD' }],
      ['?type=application/hal%2Bjson', {}],
      ['', { method: 'POST', body: '{}' }],
    ] as const) {
      const direct = await answer(`/direct${query}`, init);
      expect(direct).toEqual(await answer(`/express${query}`, init));
      expect(direct.status).toBe(201);
    }
    expect((await answer('/direct')).headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse((await answer('/direct')).text)).toEqual(JSON.parse(JSON.stringify(body)));
    // A conditional GET that names the ETag is still answered 304 by Express.
    expect((await answer('/fresh', { headers: { 'if-none-match': '"3"' } })).status).toBe(304);
    expect((await answer('/fresh', { headers: { 'if-none-match': '"2"' } })).status).toBe(200);
  });
});
