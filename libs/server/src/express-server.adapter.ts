import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express } from 'express';

/**
 * Nest's Express adapter, with one difference: the HTTP server creates each request and
 * response already carrying Express's prototypes (`app.request`, `app.response`).
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
    this.httpServer = createServer({ IncomingMessage: withPrototype(IncomingMessage, app.request), ServerResponse: withPrototype(ServerResponse, app.response) }, app);
  }
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
