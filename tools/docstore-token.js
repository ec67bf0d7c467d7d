'use strict';
// `npm run -s docstore:token -- --client <uuid> [--name N] [--scopes a,b|*] [--expires-at ISO]`
// Prints only the new token's plain text on stdout; everything else goes to stderr.

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ensurePostgres, ROOT } = require('./local-services');

async function main() {
  const build = spawnSync('npx', ['nx', 'build', 'docstore', '--output-style=static'], {
    cwd: ROOT,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (build.status !== 0) throw new Error('Building the docstore failed; run `npx nx build docstore` to see why.');
  const cli = require(path.join(ROOT, 'dist/docstore/apps/docstore/src/tokens/token.cli.js'));
  const args = cli.parseTokenCliArgs(process.argv.slice(2));
  // The same database `npm start` uses: DATABASE_URL, or the embedded one in .data/postgres.
  const postgres = await ensurePostgres(
    process.env.DATABASE_URL
      ? { url: process.env.DATABASE_URL }
      : { dataDir: '.data/postgres', port: Number(process.env.EMBEDDED_PG_PORT || 54320), database: 'services' },
  );
  try {
    process.stdout.write(`${await cli.createTokenFromCli(postgres.url, args)}\n`);
  } finally {
    await postgres.stop();
  }
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
