import type { IncomingMessage } from 'node:http';
import type { BaseServiceConfig } from '@app/config';
import type { Params } from 'nestjs-pino';
import pino from 'pino';
import { assignRequestId } from './request-id';

/** Structured JSON logs: request id (taken from X-Request-Id when sane, echoed back), secrets redacted, async writes. */
export function loggerParams(config: BaseServiceConfig, service: string, version: string): Params {
  return {
    pinoHttp: [
      {
        level: config.LOG_LEVEL,
        base: { service, version },
        genReqId: assignRequestId,
        redact: {
          paths: [
            'req.headers.authorization',
            'req.headers["x-client-token"]',
            'req.headers.apikey',
            'req.headers.cookie',
            'res.headers["set-cookie"]',
          ],
          censor: '[redacted]',
        },
        autoLogging: { ignore: (req: IncomingMessage) => req.url === '/health' },
        serializers: {
          req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, url: req.url }),
          res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        },
      },
      // Asynchronous writes keep logging off the request's critical path.
      pino.destination({ dest: 1, sync: false, minLength: 4096 }),
    ],
  };
}
