'use strict';
// Diagnostic only: preloaded into a docstore child (`node -r bench/lib/ablate.js main.js`)
// with BENCH_ABLATE=<comma list> to switch one cost off at a time and measure what it
// costs per request. Never used for the headline docstore numbers.
//   als              nestjs-pino's per-request AsyncLocalStorage.run (turns on async hooks
//                    for every promise in the process) becomes a plain call
//   param-validation the global ValidationPipe passes @Param() values through
//                    (no class-transformer / class-validator on path parameters)
//   rate-limit       RateLimiter.hit answers without the Redis round trip

const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const load = (id) => require(require.resolve(id, { paths: [ROOT] }));
const wanted = new Set((process.env.BENCH_ABLATE || '').split(',').map((s) => s.trim()).filter(Boolean));

for (const name of wanted) {
  if (name === 'als') {
    const { storage } = load('nestjs-pino/storage');
    storage.run = (_store, callback, ...args) => callback(...args);
  } else if (name === 'param-validation') {
    const { ValidationPipe } = load('@nestjs/common');
    const transform = ValidationPipe.prototype.transform;
    ValidationPipe.prototype.transform = function (value, metadata) {
      return metadata.type === 'param' ? value : transform.call(this, value, metadata);
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
  } else {
    throw new Error(`BENCH_ABLATE: unknown "${name}" (als, param-validation, rate-limit)`);
  }
}
