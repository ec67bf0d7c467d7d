// @ts-check
'use strict';
// `node tools/app-cli.js <app> <command> [options]`: runs one of the app's commands, the same
// code as `node apps/<app>/src/main.js <command> [options]` in the image, against the database
// `npm start` uses (see commandDatabase). The app is built first only when its
// sources changed (tools/app-build.js), so parallel calls never see a half-written dist/.
// Only the command's result goes to stdout; a failure is one sentence on stderr and exit code 1.
// An npm script per command is then one line, e.g.
//
//   "docstore:token": "node tools/app-cli.js docstore token"

const path = require('node:path');
const { ROOT, APP_PORTS, RUN_STATE_FILE } = require('./defaults');
const { ensureBuilt } = require('./app-build');
const { localEncryptionKeys } = require('./encryption-keys');
const { ensurePostgres, ensureRunDatabase } = require('./local-services');
const { readRunState } = require('./run-state');

/**
 * The database a command uses, the first of: DATABASE_DIRECT_URL (past a transaction pooler: a command migrates
 * under a session advisory lock), DATABASE_URL, the one a running `npm start` recorded (its port or URL may have
 * been changed in its own shell), and the embedded cluster (EMBEDDED_PG_PORT, started if it is not running).
 * @param {NodeJS.ProcessEnv} [env]
 * @param {string} [stateFile]
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
function commandDatabase(env = process.env, stateFile = RUN_STATE_FILE) {
  const given = env.DATABASE_DIRECT_URL || env.DATABASE_URL;
  if (given) return ensurePostgres({ url: given });
  const running = readRunState(stateFile);
  if (running) return ensurePostgres({ url: running.databaseUrl });
  return ensureRunDatabase();
}

/**
 * @typedef {{ main(argv: string[], serve: () => Promise<void>, open: () => Promise<{ url: string, close(): Promise<void> }>): Promise<void> }} CommandLine
 */

/**
 * @param {string} app one of APP_PORTS' keys
 * @param {string[]} argv the command and its options (empty: the list of commands)
 */
async function runAppCli(app, argv) {
  if (!(app in APP_PORTS)) throw new Error(`Unknown app ${app}; choose from ${Object.keys(APP_PORTS).join(', ')}.`);
  await ensureBuilt(app);
  const file = path.join(ROOT, 'dist', app, 'apps', app, 'src', 'cli', `${app}.cli.js`);
  /** @type {CommandLine | undefined} */
  const cli = Object.values(require(file)).find((value) => typeof value?.main === 'function');
  if (!cli) throw new Error(`${path.relative(ROOT, file)} exports no command line.`);
  await cli.main(
    argv.length > 0 ? argv : ['help'],
    () => Promise.reject(new Error(`${argv[0]} is not a command of ${app}.`)),
    async () => {
      // The app's settings need a key even when this command stores no secret.
      process.env.ENCRYPTION_KEYS = localEncryptionKeys();
      const postgres = await commandDatabase();
      return { url: postgres.url, close: postgres.stop };
    },
  );
}

module.exports = { runAppCli, commandDatabase };

if (require.main === module) {
  const [app, ...argv] = process.argv.slice(2);
  if (!app) {
    process.stderr.write(`usage: node tools/app-cli.js <${Object.keys(APP_PORTS).join('|')}> <command> [options]\n`);
    process.exit(2);
  }
  runAppCli(app, argv).catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
