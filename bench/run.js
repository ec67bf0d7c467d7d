'use strict';
// `node bench/run.js [docstore|webhooks|gateway|ingest|sales-read|push|metrics|changes]` (default docstore): one bench,
// its TypeScript compiled on load by @swc/core (bench/register.js). bench/README.md has what each measures.
require('./register');
const BENCHES = ['docstore', 'webhooks', 'gateway', 'ingest', 'sales-read', 'push', 'metrics', 'changes'];
const which = process.argv[2] ?? 'docstore';
if (BENCHES.includes(which)) require(`./${which}.ts`);
else {
  process.stderr.write(`usage: node bench/run.js [${BENCHES.join('|')}]\n`);
  process.exitCode = 2;
}
