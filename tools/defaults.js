// @ts-check
'use strict';
// Where local runs keep their state, and the ports they use: the one place start.js, the
// Jest setup and every CLI under tools/ read them from.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

/**
 * The port setting `name`, or `fallback` when unset. A bad value stops the tool here with one sentence
 * naming the setting as the user wrote it: read later it would reach an app as `PORT=NaN`.
 * @param {string} name
 * @param {number} fallback
 * @returns {number}
 */
function portSetting(name, fallback) {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (/^\d{1,5}$/.test(text) && Number(text) >= 1 && Number(text) <= 65535) return Number(text);
  process.stderr.write(`Setting ${name} is invalid (a port number from 1 to 65535); got ${JSON.stringify(text)}.\n`);
  process.exit(1);
}

/** The apps `npm start` runs, with their ports (each overridable by its variable). */
const APP_PORTS = {
  docstore: portSetting('DOCSTORE_PORT', 3001),
  gateway: portSetting('GATEWAY_PORT', 3002),
  'ingest-push': portSetting('INGEST_PUSH_PORT', 3003),
};

/** The web console's port (`npm start` serves it with the three APIs behind it, tools/console-server.js). */
const CONSOLE_PORT = portSetting('CONSOLE_PORT', 3000);

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
  run: { dataDir: path.join(EMBEDDED_ROOT, 'postgres'), port: portSetting('EMBEDDED_PG_PORT', 54320), database: 'services' },
  // `npm test` without TEST_DATABASE_URL: the admin database; each Jest worker creates its own.
  test: { dataDir: path.join(EMBEDDED_ROOT, 'test-postgres'), port: 54321, database: 'postgres' },
};

/** The default Redis; REDIS_URL (TEST_REDIS_URL in tests) overrides it. */
const REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * What a running `npm start` uses (its pid, database and Redis URLs, ports), written when it is up and removed when
 * it stops, so the credential commands in another shell use the same database (tools/run-state.js).
 */
const RUN_STATE_FILE = path.join(LOCAL_DIR, 'run-state.json');

module.exports = { ROOT, APP_PORTS, CONSOLE_PORT, LOCAL_DIR, EMBEDDED_ROOT, EMBEDDED_POSTGRES, REDIS_URL, RUN_STATE_FILE, isRoot };

// `node tools/defaults.js KEY` prints one of them (for scripts such as .ci/run).
if (require.main === module) {
  const key = process.argv[2];
  const value = key ? /** @type {Record<string, unknown>} */ (module.exports)[key] : module.exports;
  process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}\n`);
}
