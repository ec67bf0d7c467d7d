import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BaseServiceConfig } from '@app/config';
import type { Params } from 'nestjs-pino';
import pino from 'pino';

const REQUEST_ID = /^[\w.-]{1,128}$/;

/** Structured JSON logs: request id (taken from X-Request-Id when sane, echoed back), secrets redacted, async writes. */
export function loggerParams(config: BaseServiceConfig, service: string, version: string): Params {
  return {
    pinoHttp: [
      {
        level: config.LOG_LEVEL,
        base: { service, version },
        genReqId: (req: IncomingMessage, res: ServerResponse) => {
          const incoming = req.headers['x-request-id'];
          const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
          res.setHeader('X-Request-Id', id);
          return id;
        },
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
