// @ts-check
'use strict';
// `node tools/app-cli.js <app> <module> [args...]`: builds <app>, gets the database `npm start`
// uses (DATABASE_DIRECT_URL, DATABASE_URL, or the embedded cluster), and runs the CLI that the compiled module
// apps/<app>/src/<module>.ts exports as `cli`:
//
//   export const cli = { parse: (argv: string[]) => Args, run: (databaseUrl: string, args: Args) => Promise<string> };
//
// `parse` runs first (bad arguments never start a database); only `run`'s result goes to
// stdout, everything else (build output, notices) to stderr, and a failure is one sentence
// and exit code 1. An npm script per CLI is then one line, e.g.
//
//   "docstore:token": "node tools/app-cli.js docstore tokens/token.cli"
//   "gateway:apikey": "node tools/app-cli.js gateway keys/apikey.cli"

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT, APP_PORTS } = require('./defaults');
const { localEncryptionKeys } = require('./encryption-keys');
const { ensurePostgres, ensureRunDatabase } = require('./local-services');

/**
 * @param {string} app one of APP_PORTS' keys
 * @param {string} module the CLI module's path under apps/<app>/src, without extension
 * @param {string[]} argv the CLI's own arguments
 * @returns {Promise<string>} what the CLI's `run` returned
 */
async function runAppCli(app, module, argv) {
  if (!(app in APP_PORTS)) throw new Error(`Unknown app ${app}; choose from ${Object.keys(APP_PORTS).join(', ')}.`);
  const build = spawnSync('npx', ['nx', 'build', app, '--output-style=static'], { cwd: ROOT, stdio: ['ignore', process.stderr, process.stderr] });
  if (build.status !== 0) throw new Error(`Building ${app} failed; run \`npx nx build ${app}\` to see why.`);
  const file = path.join(ROOT, 'dist', app, 'apps', app, 'src', `${module}.js`);
  /** @type {{ cli?: { parse(argv: string[]): unknown, run(databaseUrl: string, args: unknown): Promise<string> } }} */
  const loaded = require(file);
  if (!loaded.cli) throw new Error(`${path.relative(ROOT, file)} exports no \`cli\` ({ parse, run }).`);
  const args = loaded.cli.parse(argv);
  // The app's settings need a key even when this command stores no secret.
  process.env.ENCRYPTION_KEYS = localEncryptionKeys();
  // A CLI migrates (a session advisory lock): past a transaction pooler, straight to PostgreSQL.
  const direct = process.env.DATABASE_DIRECT_URL;
  const postgres = direct ? await ensurePostgres({ url: direct }) : await ensureRunDatabase();
  try {
    return await loaded.cli.run(postgres.url, args);
  } finally {
    await postgres.stop();
  }
}

module.exports = { runAppCli };

if (require.main === module) {
  const [app, cliModule, ...argv] = process.argv.slice(2);
  if (!app || !cliModule) {
    process.stderr.write('usage: node tools/app-cli.js <app> <module under apps/<app>/src> [args...]\n');
    process.exit(2);
  }
  runAppCli(app, cliModule, argv).then(
    (result) => process.stdout.write(`${result}\n`),
    (err) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
