import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import pino, { type Logger } from 'pino';
import type { ServerConfig } from './server.config';

/** Injection token of the process's root pino logger. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/**
 * The root logger: JSON lines with service and version, secrets redacted wherever a
 * request or headers get logged, written asynchronously off the request's path.
 */
export function createRootLogger(config: Pick<ServerConfig, 'LOG_LEVEL'>, service: string, version: string): Logger {
  return pino(
    {
      level: config.LOG_LEVEL,
      base: { service, version },
      redact: {
        paths: ['req.headers.authorization', 'req.headers["x-client-token"]', 'req.headers.apikey', 'req.headers.cookie', 'headers.authorization', 'headers["x-client-token"]', 'headers.apikey', 'headers.cookie'],
        censor: '[redacted]',
      },
    },
    pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * nestjs-pino routes Nest's own logging (startup, errors) to the root logger. Its
 * per-request middleware (a pino-http child logger and an AsyncLocalStorage scope for
 * every request) is left off: requestLog below writes the one line per request instead,
 * at a fraction of the cost, and errors carry the request id themselves.
 */
export function loggerParams(logger: Logger): Params {
  return { pinoHttp: { logger, autoLogging: false }, forRoutes: [] };
}

/** One line per request: id, method, URL, status and time taken, or "request aborted" when the client left first. /health is not logged. */
export function requestLog(logger: Logger) {
  return (req: IncomingMessage & { id?: unknown; originalUrl?: string }, res: ServerResponse, next: () => void): void => {
    if (req.url === '/health' || !logger.isLevelEnabled('info')) return next();
    const started = performance.now();
    res.once('close', () => {
      logger.info(
        { reqId: req.id, req: { method: req.method, url: req.originalUrl ?? req.url }, res: { statusCode: res.statusCode }, responseTime: Math.round(performance.now() - started) },
        res.writableFinished ? 'request completed' : 'request aborted',
      );
    });
    next();
  };
}
