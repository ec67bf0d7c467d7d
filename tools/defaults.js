// @ts-check
'use strict';
// Where local runs keep their state, and the ports they use: the one place start.js, the
// Jest setup and every CLI under tools/ read them from.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/** The apps `npm start` runs, with their ports (each overridable by its variable). */
const APP_PORTS = {
  docstore: Number(process.env.DOCSTORE_PORT || 3001),
  gateway: Number(process.env.GATEWAY_PORT || 3002),
  'ingest-push': Number(process.env.INGEST_PUSH_PORT || 3003),
};

/** The web console's port (`npm start` serves it with the three APIs behind it, tools/console-server.js). */
const CONSOLE_PORT = Number(process.env.CONSOLE_PORT || 3000);

/** Files of this clone that stay in it: the generated encryption key. */
const LOCAL_DIR = path.join(ROOT, '.data');

const isRoot = process.getuid?.() === 0;

/**
 * Where the embedded PostgreSQL keeps its clusters. PostgreSQL refuses to run as root, so as
 * root it runs as the `postgres` user, who may not be able to enter this clone (a 0700
 * directory such as /root or `mktemp -d`): its data then lives in a 0755 directory of its own,
 * /var/tmp/services-<hash of this clone's path>, and its binaries are copied beside it.
 */
const EMBEDDED_ROOT = isRoot
  ? path.join('/var/tmp', `services-${crypto.createHash('sha256').update(fs.realpathSync(ROOT)).digest('hex').slice(0, 12)}`)
  : LOCAL_DIR;

/**
 * @typedef {{ dataDir: string, port: number, database: string }} EmbeddedCluster
 * @type {{ run: EmbeddedCluster, test: EmbeddedCluster }}
 */
const EMBEDDED_POSTGRES = {
  // `npm start` and the CLIs: one `services` database, each app in its own schema.
  run: { dataDir: path.join(EMBEDDED_ROOT, 'postgres'), port: Number(process.env.EMBEDDED_PG_PORT || 54320), database: 'services' },
  // `npm test` without TEST_DATABASE_URL: the admin database; each Jest worker creates its own.
  test: { dataDir: path.join(EMBEDDED_ROOT, 'test-postgres'), port: 54321, database: 'postgres' },
};

/** The default Redis; REDIS_URL (TEST_REDIS_URL in tests) overrides it. */
const REDIS_URL = 'redis://127.0.0.1:6379';

module.exports = { ROOT, APP_PORTS, CONSOLE_PORT, LOCAL_DIR, EMBEDDED_ROOT, EMBEDDED_POSTGRES, REDIS_URL, isRoot };

// `node tools/defaults.js KEY` prints one of them (for scripts such as .ci/run).
if (require.main === module) {
  const key = process.argv[2];
  const value = key ? /** @type {Record<string, unknown>} */ (module.exports)[key] : module.exports;
  process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
}
