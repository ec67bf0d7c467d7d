// @ts-check
'use strict';
// `node tools/run-tool.js <project> [args...]`: runs the command-line tool apps/<project> (its
// built src/main.js, whose `run(argv)` resolves with the exit code) in this process. The tool is
// built first only when its sources changed (tools/app-build.js), so parallel calls never see a
// half-written dist/. npm scripts name the tool and its command, e.g.
//
//   "ingest:upload": "node tools/run-tool.js sales-upload upload"

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./defaults');
const { ensureBuilt } = require('./app-build');

/**
 * @param {string} project a folder of apps/ whose src/main.ts exports `run`
 * @param {string[]} argv the tool's arguments
 * @returns {Promise<number>} the tool's exit code
 */
async function runTool(project, argv) {
  if (!/^[a-z][a-z0-9-]*$/.test(project) || !fs.existsSync(path.join(ROOT, 'apps', project, 'src', 'main.ts'))) {
    throw new Error(`apps/${project}/src/main.ts does not exist.`);
  }
  await ensureBuilt(project);
  /** @type {{ run?: (argv: string[]) => Promise<number> }} */
  const tool = require(path.join(ROOT, 'dist', project, 'apps', project, 'src', 'main.js'));
  if (typeof tool.run !== 'function') throw new Error(`apps/${project}/src/main.ts exports no \`run(argv)\`.`);
  return tool.run(argv);
}

module.exports = { runTool };

if (require.main === module) {
  const [project, ...argv] = process.argv.slice(2);
  if (!project) {
    process.stderr.write('usage: node tools/run-tool.js <project under apps/> [args...]\n');
    process.exit(2);
  }
  runTool(project, argv).then(
    (code) => {
      if (code !== 0) process.exit(code);
    },
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
