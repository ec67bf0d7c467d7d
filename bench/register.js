'use strict';
// A tiny require hook: compiles the bench's TypeScript files with @swc/core as they load
// (legacy decorators + metadata, as tsc does for the apps). Used by run.js and by the
// child processes (`node -r ./bench/register.js bench/floors/raw.ts`).

const fs = require('node:fs');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const options = (filename) => ({
  filename,
  swcrc: false,
  configFile: false,
  sourceMaps: 'inline',
  module: { type: 'commonjs' },
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    keepClassNames: true,
  },
});

Module._extensions['.ts'] = function compileTs(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), options(filename));
  module._compile(code, filename);
};
