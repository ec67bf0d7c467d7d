import type { Params } from 'nestjs-pino';
import pino, { type DestinationStream, type Logger } from 'pino';
import { traceIds } from '@app/observability';
import type { ServerConfig } from './server.config';

/** Injection token of the process's root pino logger. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');

/** Lines are written in batches of this many bytes (one write per ≈ 15 request lines)... */
const LOG_BATCH_BYTES = 4096;
/** ...or when this much time has passed, whichever comes first. */
const LOG_FLUSH_MS = 1000;

/**
 * The root logger: JSON lines with service and version, secrets redacted wherever a
 * request or headers get logged, written asynchronously off the request's path in
 * batches (a write per line showed in every request's CPU profile).
 * A line waits at most LOG_FLUSH_MS; what is buffered is written at shutdown and, by
 * pino's exit hook, when the process exits on an error. Only a killed process
 * (SIGKILL, out of memory) loses its last second of lines.
 */
export function createRootLogger(config: Pick<ServerConfig, 'LOG_LEVEL'>, service: string, version: string): Logger {
  return pino(
    {
      level: config.LOG_LEVEL,
      base: { service, version },
      timestamp: pino.stdTimeFunctions.isoTime,
      // The active span's ids (`trace_id`, `span_id`), so a log line and its trace join; none with tracing off.
      mixin: traceIds,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-client-token"]',
          'req.headers.apikey',
          'req.headers.cookie',
          'headers.authorization',
          'headers["x-client-token"]',
          'headers.apikey',
          'headers.cookie',
        ],
        censor: '[redacted]',
      },
    },
    batchedDestination(1),
  );
}

/**
 * pino's own asynchronous destination (sonic-boom, with pino's exit hook), in buffer mode:
 * each line goes in as a Buffer and a batch is one Buffer.concat. In its default string
 * mode sonic-boom appends to the pending batch's string and measures its UTF-8 length on
 * every write, which copies the whole batch each time; a Buffer per line does not.
 */
export function batchedDestination(dest: number | string): DestinationStream & { flush(cb: (err?: Error) => void): void } {
  const out = pino.destination({ dest, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS, contentMode: 'buffer' });
  return {
    write: (line: string) => out.write(Buffer.from(line) as unknown as string),
    flush: (cb) => out.flush(cb),
  };
}

/**
 * nestjs-pino routes Nest's own logging (startup, errors) to the root logger. Its
 * per-request middleware (a pino-http child logger and an AsyncLocalStorage scope for
 * every request) is left off: trackRequests (request-tracking.middleware.ts) writes the one
 * line per request instead,
 * at a fraction of the cost, and errors carry the request id themselves.
 */
export function loggerParams(logger: Logger): Params {
  return { pinoHttp: { logger, autoLogging: false }, forRoutes: [] };
}
