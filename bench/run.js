'use strict';
// `node bench/run.js`           the HTTP benchmark (bench/docstore.ts)
// `node bench/run.js webhooks`  webhook delivery: writes with and without a webhook, and a bare BullMQ floor (bench/webhooks.ts)
// `node bench/run.js gateway`   the gateway's sends against a bare NestJS floor, added latency, upload memory (bench/gateway.ts)
// TypeScript is compiled on load by @swc/core (bench/register.js).
require('./register');
const which = process.argv[2];
if (which === undefined || which === 'http') require('./docstore.ts');
else if (which === 'webhooks') require('./webhooks.ts');
else if (which === 'gateway') require('./gateway.ts');
else {
<<<<<<< HEAD
  process.stderr.write(`usage: node bench/run.js [http|micro|webhooks|gateway]\n`);
=======
  process.stderr.write(`usage: node bench/run.js [http|webhooks]\n`);
>>>>>>> main
  process.exitCode = 2;
}
