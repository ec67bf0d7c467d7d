'use strict';
// `node bench/run.js`        the HTTP benchmark (bench/docstore.ts)
// `node bench/run.js micro`  in-process micro-costs of the docstore's per-request parts (bench/micro.ts)
// TypeScript is compiled on load by @swc/core (bench/register.js).
require('./register');
const which = process.argv[2];
if (which === undefined || which === 'http') require('./docstore.ts');
else if (which === 'micro') require('./micro.ts');
else {
  process.stderr.write(`usage: node bench/run.js [http|micro]\n`);
  process.exitCode = 2;
}
