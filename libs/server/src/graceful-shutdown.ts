import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * On SIGTERM or SIGINT: stop accepting connections and let the requests in flight finish
 * (idle keep-alive connections are closed as they go idle), then close the app (workers
 * stop taking jobs and finish theirs, pools and Redis close, logs flush) and exit 0.
 * Nest's own signal handling would close modules first and the HTTP server last, so
 * requests could still arrive while the pools close.
 */
export function closeGracefullyOnSignals(app: INestApplication): void {
  let closing = false;
  const onSignal = () => {
    if (closing) return;
    closing = true;
    void drain(app.getHttpServer() as Server)
      .then(() => app.close())
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

/** Resolves once the server accepts nothing and no request is in flight. */
function drain(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 250);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
