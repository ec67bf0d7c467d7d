'use strict';
// Diagnostic only: preloaded into a docstore child (`node -r bench/lib/ablate.js main.js`)
// with BENCH_ABLATE=<comma list> to switch one cost off (or try one fix) at a time and
// measure what it is worth per request. Never used for the headline docstore numbers.
//   als               nestjs-pino's per-request AsyncLocalStorage.run (which turns on async
//                     hooks for every promise in the process) becomes a plain call
//   no-request-log    pino-http's middleware becomes a pass-through (no child logger, no
//                     "request completed" line)
//   lean-request-log  proposed: pino-http replaced by one logger.info per request from a
//                     'finish'/'close' listener (same fields, no per-request child logger)
//   pino-unwrapped    pino-http with wrapSerializers: false, so the app's own req/res
//                     serializers get the raw objects (same log output, no std serializers)
//   param-validation  the global ValidationPipe passes @Param() values through
//                     (no class-transformer / class-validator on path parameters)
//   fast-validation   proposed fix: the global pipe skips class-transformer/class-validator
//                     when a cheap check for the DTO passes (bench/lib/fast-checks.ts)
//   rate-limit        RateLimiter.hit answers without the Redis round trip
//   no-metrics        the Prometheus request metrics middleware (libs/observability) becomes a
//                     pass-through: what /metrics costs each request
//   redis-autopipeline ioredis enableAutoPipelining: commands issued in the same tick share
//                     one write (the rate-limit script included)

const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const load = (id) => require(require.resolve(id, { paths: [ROOT] }));
const wanted = new Set((process.env.BENCH_ABLATE || '').split(',').map((s) => s.trim()).filter(Boolean));

for (const name of wanted) {
  if (name === 'als') {
    const { storage } = load('nestjs-pino/storage');
    storage.run = (_store, callback, ...args) => callback(...args);
  } else if (name === 'no-request-log') {
    const pinoHttp = load('pino-http');
    const pino = load('pino');
    pinoHttp.pinoHttp = () => {
      const logger = pino({ level: 'silent' });
      const middleware = (req, res, next) => {
        req.log = res.log = logger;
        next();
      };
      middleware.logger = logger;
      return middleware;
    };
  } else if (name === 'lean-request-log') {
    // Proposed: one pino line per request written from a 'finish'/'close' listener, no
    // per-request child logger (what pino-http builds, serialising and redacting req each time).
    const pinoHttp = load('pino-http');
    const pino = load('pino');
    pinoHttp.pinoHttp = (opts, stream) => {
      const logger = pino({ level: opts.level, base: opts.base }, stream);
      const ignore = opts.autoLogging && opts.autoLogging.ignore;
      const middleware = (req, res, next) => {
        const id = opts.genReqId(req, res);
        req.id = id;
        req.log = res.log = logger;
        if (!(ignore && ignore(req))) {
          const started = Date.now();
          const url = req.originalUrl || req.url;
          const done = () => {
            res.removeListener('finish', done);
            res.removeListener('close', done);
            const fields = { req: { id, method: req.method, url }, res: { statusCode: res.writableFinished ? res.statusCode : null }, responseTime: Date.now() - started };
            logger.info(fields, res.writableFinished ? 'request completed' : 'request aborted');
          };
          res.on('finish', done);
          res.on('close', done);
        }
        next();
      };
      middleware.logger = logger;
      return middleware;
    };
  } else if (name === 'pino-unwrapped') {
    const pinoHttp = load('pino-http');
    const original = pinoHttp.pinoHttp;
    pinoHttp.pinoHttp = (opts, stream) => original({ ...opts, wrapSerializers: false }, stream);
  } else if (name === 'param-validation') {
    const { ValidationPipe } = load('@nestjs/common');
    const transform = ValidationPipe.prototype.transform;
    ValidationPipe.prototype.transform = function (value, metadata) {
      return metadata.type === 'param' ? value : transform.call(this, value, metadata);
    };
  } else if (name === 'fast-validation') {
    // The proposed change: the global pipe hands a value on untouched when a cheap check for
    // its DTO passes (bench/lib/fast-checks.ts), and validates it fully otherwise.
    require('../register');
    const checks = require('./fast-checks.ts');
    const dto = (rel) => {
      try {
        return load(path.join(ROOT, 'dist/docstore/apps/docstore/src/documents', rel));
      } catch {
        return {}; // e.g. path DTOs replaced by a plain pipe: nothing to speed up there
      }
    };
    const { ScopePathDto, DocumentPathDto } = dto('document-path.dto.js');
    const { DocumentBodyDto, BulkBodyDto } = dto('document.dto.js');
    const fast = new Map(
      [
        [ScopePathDto, checks.scopePathOk],
        [DocumentPathDto, checks.documentPathOk],
        [DocumentBodyDto, checks.documentBodyOk],
        [BulkBodyDto, checks.bulkBodyOk],
      ].filter(([dtoClass]) => dtoClass),
    );
    const pipes = load(path.join(ROOT, 'dist/docstore/libs/errors/src/validation.pipe.js'));
    const create = pipes.createValidationPipe;
    pipes.createValidationPipe = () => {
      const pipe = create();
      const transform = pipe.transform.bind(pipe);
      pipe.transform = (value, metadata) => {
        const check = metadata.metatype && fast.get(metadata.metatype);
        return check && check(value) ? Promise.resolve(value) : transform(value, metadata);
      };
      return pipe;
    };
  } else if (name === 'rate-limit') {
    const { RateLimiter } = load(path.join(ROOT, 'dist/docstore/libs/rate-limit/src/rate-limiter.service.js'));
    RateLimiter.prototype.hit = async (_bucket, _subject, limit) => ({
      limit,
      remaining: limit - 1,
      reset: Math.ceil(Date.now() / 60000) * 60,
      exceeded: false,
      retryAfter: 60,
    });
  } else if (name === 'no-metrics') {
    const middleware = load(path.join(ROOT, 'dist/docstore/libs/observability/src/http-metrics.middleware.js'));
    middleware.httpMetrics = () => (_req, _res, next) => next();
  } else if (name === 'redis-autopipeline') {
    const Redis = load('ioredis');
    const defineCommand = Redis.prototype.defineCommand;
    // RateLimiter calls defineCommand on the shared client at start: turn the option on there.
    Redis.prototype.defineCommand = function (...args) {
      this.options.enableAutoPipelining = true;
      return defineCommand.apply(this, args);
    };
  } else {
    throw new Error(`BENCH_ABLATE: unknown "${name}"`);
  }
}
