'use strict';
// `node bench/run.js`           the HTTP benchmark (bench/docstore.ts)
// `node bench/run.js metrics`   what the Prometheus request metrics cost per request (bench/metrics.ts)
// `node bench/run.js webhooks`  webhook delivery: writes with and without a webhook, and a bare BullMQ floor (bench/webhooks.ts)
// `node bench/run.js ingest`    sales ingestion: psql \copy floor vs the service on a 1 GB CSV and the same rows as JSON (bench/ingest.ts)
// `node bench/run.js gateway`   the gateway's sends against a bare NestJS floor, added latency, upload memory (bench/gateway.ts)
// `node bench/run.js push`      bulk push: acceptance, end-to-end rate and lag against a fake FCM, and a bare BullMQ floor (bench/push.ts)
// `node bench/run.js prune`     retention pruning: rows/s, and writes' latency with and without a prune (bench/prune.ts)
// TypeScript is compiled on load by @swc/core (bench/register.js).
require('./register');
const which = process.argv[2];
if (which === undefined || which === 'http') require('./docstore.ts');
else if (which === 'webhooks') require('./webhooks.ts');
else if (which === 'ingest') require('./ingest.ts');
else if (which === 'gateway') require('./gateway.ts');
else if (which === 'metrics') require('./metrics.ts');
else if (which === 'push') require('./push.ts');
else if (which === 'prune') require('./prune.ts');
else {
  process.stderr.write(`usage: node bench/run.js [http|webhooks|ingest|gateway|metrics|push|prune]\n`);
  process.exitCode = 2;
}
