import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { flushTraces } from '@app/observability';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Emitted on the HTTP server when the drain begins. */
export const DRAINING_EVENT = 'draining';

/** How long a connection that has sent no request yet may still send one once the drain has begun. */
export const FRESH_CONNECTION_GRACE_MS = 2000;

/**
 * On SIGTERM or SIGINT: stop accepting connections and let the requests in flight finish, then close the app
 * (workers stop taking jobs and finish theirs, pools and Redis close, logs flush) and exit 0.
 * Nest's own signal handling would close modules first and the HTTP server last, so
 * requests could still arrive while the pools close.
 */
export function closeGracefullyOnSignals(app: INestApplication): void {
  const drain = drainOnDemand(app.getHttpServer() as Server);
  let closing = false;
  const onSignal = () => {
    if (closing) return;
    closing = true;
    void drain()
      .then(() => app.close())
      .then(() => flushTraces())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`Shutdown failed: ${(error as Error).message}\n`);
          process.exit(1);
        },
      );
  };
  for (const signal of SIGNALS) process.once(signal, onSignal);
}

/**
 * Tracks the server's connections from now on and returns `drain()`, which resolves once the server accepts nothing
 * and no connection is left. While draining, answers close their connection; a connection idle after a request is
 * closed at once, and one that has sent nothing yet gets FRESH_CONNECTION_GRACE_MS for its request. Node's own
 * `server.close()` closes every idle connection at once, including those a load balancer has just opened and is
 * writing a request to: that request would fail (a 502 for a POST, which a proxy does not resend).
 */
export function drainOnDemand(server: Server): () => Promise<void> {
  const open = new Map<Socket, { requests: number; served: boolean }>();
  let drainingSince: number | undefined;
  server.on('connection', (socket: Socket) => {
    open.set(socket, { requests: 0, served: false });
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const state = open.get(req.socket);
    if (!state) return;
    state.requests++;
    state.served = true;
    if (drainingSince !== undefined && !res.headersSent) res.shouldKeepAlive = false;
    res.once('close', () => state.requests--);
  });
  const sweep = () => {
    for (const [socket, state] of open) {
      if (state.requests > 0) continue;
      // Written answers go out first (destroySoon ends the socket once its writes are flushed).
      if (state.served) socket.destroySoon();
      else if (Date.now() - drainingSince! >= FRESH_CONNECTION_GRACE_MS) socket.destroy();
    }
  };
  return () => {
    if (!server.listening) return Promise.resolve();
    drainingSince = Date.now();
    // Answers that never end by themselves (event streams, long polls) listen for this and end now.
    server.emit(DRAINING_EVENT);
    return new Promise((resolve) => {
      const timer = setInterval(sweep, 100);
      // net.Server's close: stop listening, call back once every connection has ended (http.Server's would close idle ones first).
      NetServer.prototype.close.call(server, () => {
        clearInterval(timer);
        resolve();
      });
      sweep();
    });
  };
}
