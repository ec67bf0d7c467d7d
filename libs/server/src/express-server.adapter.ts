import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { StreamableFile, type NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';

/**
 * Nest's Express adapter, with two differences. The HTTP server creates each request and
 * response already carrying Express's prototypes (`app.request`, `app.response`); and a
 * handler's plain JSON answer is written directly (see `reply`).
 *
 * Express gives every request and response those prototypes as it takes them
 * (`Object.setPrototypeOf(req, app.request)`). V8 then builds a new hidden class (map) for
 * each such object, so no request ever had a map that the property caches along its way
 * (Express, the router, Nest, the guard, the logger) had seen before: every `req.url` or
 * `res.setHeader` was a cache miss and a slow lookup. Created with the right prototype from
 * the start, Express's `setPrototypeOf` changes nothing and every request has the same map.
 */
export class ExpressServerAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    if (options.httpsOptions || options.forceCloseConnections) return super.initHttpServer(options);
    const app = this.getInstance<Express>();
    this.httpServer = createServer(
      { IncomingMessage: withPrototype(IncomingMessage, app.request), ServerResponse: withPrototype(ServerResponse, app.response) },
      app,
    );
  }

  /**
   * A handler's object answer, when nothing about the exchange needs Express's `res.json`, is
   * serialized and ended here with the headers `res.json` would set: the same bytes without
   * its settings look-ups, Content-Type parse and re-format, and freshness check. Everything
   * else goes to Nest's reply: a Content-Type already set, a conditional GET (If-None-Match,
   * If-Modified-Since: Express may answer 304), HEAD, 204/205/304, buffers and streams, and
   * an app that sets JSON replacer, spaces or escaping.
   */
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const text = directJson(response, body, statusCode) ? (JSON.stringify(body) as string | undefined) : undefined;
    if (text === undefined) return super.reply(response, body, statusCode);
    if (statusCode) response.status(statusCode);
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
    return response;
  }
}

/** True when `res.json(body)` would send `JSON.stringify(body)` with JSON's Content-Type and Content-Length, and nothing else. */
function directJson(res: Response, body: unknown, statusCode?: number): boolean {
  if (typeof body !== 'object' || body === null || ArrayBuffer.isView(body) || body instanceof StreamableFile) return false;
  const status = statusCode ?? res.statusCode;
  if (status === 204 || status === 205 || status === 304 || res.hasHeader('content-type')) return false;
  const req = res.req;
  if (req.method === 'HEAD' || req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) return false;
  const settings = res.app.settings as Record<string, unknown>;
  return settings['json replacer'] === undefined && settings['json spaces'] === undefined && !settings['json escape'];
}

/**
 * A constructor that builds `base`'s objects with `prototype` (which inherits from
 * `base.prototype`). A plain function, since a class's `prototype` cannot be replaced;
 * node:http's IncomingMessage and ServerResponse are plain functions too, so calling one
 * on a new object is exactly what `new` does.
 */
function withPrototype<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, prototype: object): T {
  const init = base as unknown as (this: object, first: Socket | IncomingMessage, options?: object) => void;
  // Two fixed parameters (a socket, or a request and options): no arguments array per request.
  function Constructed(this: object, first: Socket | IncomingMessage, options?: object) {
    init.call(this, first, options);
  }
  Constructed.prototype = prototype;
  return Constructed as unknown as T;
}
