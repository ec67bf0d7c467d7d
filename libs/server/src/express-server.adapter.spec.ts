import { once } from 'node:events';
import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
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
});
