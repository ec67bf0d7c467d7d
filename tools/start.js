// @ts-check
'use strict';
// `npm start [app ...]`: PostgreSQL + Redis (given or local), build, run the apps.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT, APP_PORTS, CONSOLE_PORT } = require('./defaults');
const { writeRunState, clearRunState, readRunState } = require('./run-state');
const { createConsoleServer } = require('./console-server');
const { localEncryptionKeys } = require('./encryption-keys');
const { ensureRunDatabase, ensureRedis, terminate, redact } = require('./local-services');
const { LOCAL_CA_CERT } = require('./local-ca');

const say = (msg) => process.stderr.write(`[start] ${msg}\n`);

const children = new Set(); // build and apps
const services = [];
/** @type {import('node:http').Server | null} */
let consoleServer = null;
let stopping = false;
let crashed = false;

async function shutdown() {
  if (stopping) return;
  stopping = true;
  consoleServer?.close();
  consoleServer?.closeAllConnections();
  await Promise.all([...children].map((child) => terminate(child, 'SIGTERM', 10_000)));
  clearRunState();
  await Promise.all(services.map((s) => s.stop().catch((err) => say(`stopping a service failed: ${err.message}`))));
  process.exit(crashed ? 1 : 0);
}

/** shutdown() from an event handler: a failure to stop is said, and the process ends anyway. */
function stopAll() {
  shutdown().catch((/** @type {Error} */ err) => {
    say(`stopping failed: ${err.message}`);
    process.exit(1);
  });
}

/** Stops what this process started, however it ends (only when run as `npm start`, not when loaded). */
function handleExit() {
  process.on('exit', () => {
    clearRunState();
    for (const child of children) child.kill('SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (!stopping) {
        say(`${signal} received, stopping`);
        stopAll();
      } else {
        for (const child of children) child.kill('SIGKILL'); // second Ctrl-C: don't wait
      }
    });
  }
}

function run(command, args, env) {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function build(apps) {
  return new Promise((resolve) => {
    const child = run('npx', ['nx', 'run-many', '-t', 'build', '-p', apps.join(','), '--output-style=static'], process.env);
    child.once('error', (err) => {
      say(`build could not start: ${err.message}`);
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(signal ? 1 : code));
  });
}

async function main() {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : [...Object.keys(APP_PORTS), 'console'];
  const unknown = names.filter((app) => !(app in APP_PORTS) && app !== 'console');
  if (unknown.length) throw new Error(`Unknown app ${unknown.join(', ')}; choose from ${[...Object.keys(APP_PORTS), 'console'].join(', ')}.`);
  const apps = names.filter((app) => app in APP_PORTS);
  const withConsole = names.includes('console');
  const encryptionKeys = localEncryptionKeys();

  const postgres = await ensureRunDatabase();
  services.push(postgres);
  if (stopping) return;
  const redis = await ensureRedis({ url: process.env.REDIS_URL || undefined, say });
  services.push(redis);
  if (stopping) return;
  say(`PostgreSQL ${redact(postgres.url)}, Redis ${redact(redis.url)}`);
  // For the credential commands run in other shells (tools/app-cli.js): this database, whatever its port. The first
  // `npm start` of the clone keeps the file while it runs (a second one, e.g. a test's stack, leaves it alone).
  const other = readRunState();
  if (other && other.pid !== process.pid) say(`another npm start (pid ${other.pid}) runs in this clone: the credential commands keep using its database`);
  else writeRunState({ databaseUrl: postgres.url, redisUrl: redis.url, ports: { ...APP_PORTS, console: CONSOLE_PORT } });

  if (process.env.SKIP_BUILD !== '1') {
    const code = await build(names);
    if (stopping) return;
    if (code !== 0) {
      say(`build failed (exit ${code})`);
      crashed = true;
      return shutdown();
    }
  }

  const entry = (app) => path.join('dist', app, 'apps', app, 'src', 'main.js');
  const missing = [...apps.map(entry), ...(withConsole ? [path.join('dist', 'console', 'index.html')] : [])].filter(
    (file) => !fs.existsSync(path.join(ROOT, file)),
  );
  if (missing.length) {
    const hint = process.env.SKIP_BUILD === '1' ? 'run without SKIP_BUILD=1 to build' : 'the build did not produce it';
    say(`${missing.join(', ')} missing; ${hint}`);
    crashed = true;
    return shutdown();
  }

  for (const app of apps) {
    const port = String(APP_PORTS[/** @type {keyof APP_PORTS} */ (app)]);
    const env = appEnvironment(app, { ...process.env, DATABASE_URL: postgres.url, REDIS_URL: redis.url, ENCRYPTION_KEYS: encryptionKeys, PORT: port });
    if (env.NODE_EXTRA_CA_CERTS === LOCAL_CA_CERT) say(`${app} trusts the local webhook CA ${path.relative(process.cwd(), env.NODE_EXTRA_CA_CERTS)}`);
    const child = run(process.execPath, [entry(app)], env);
    say(`${app} started (pid ${child.pid}, port ${port})`);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      // SIGINT/SIGTERM sent straight to the app (e.g. Ctrl-C reaching the whole process group) is a stop, not a crash.
      crashed = code !== 0 && !(signal === 'SIGINT' || signal === 'SIGTERM');
      say(`${app} exited (${signal || `code ${code}`}), stopping the others`);
      stopAll();
    });
  }
  if (withConsole) startConsole();
}

/** The console on CONSOLE_PORT: its build and the three APIs (at their `npm start` ports) behind one origin. */
function startConsole() {
  const targets = /** @type {Record<keyof APP_PORTS, string>} */ (
    Object.fromEntries(Object.entries(APP_PORTS).map(([app, port]) => [app, `http://127.0.0.1:${port}`]))
  );
  consoleServer = createConsoleServer({ root: path.join(ROOT, 'dist', 'console'), targets });
  consoleServer.once('error', (/** @type {NodeJS.ErrnoException} */ err) => {
    say(err.code === 'EADDRINUSE' ? `port ${CONSOLE_PORT} is in use; set CONSOLE_PORT to another port` : `the console could not start: ${err.message}`);
    crashed = true;
    stopAll();
  });
  consoleServer.listen(CONSOLE_PORT, () => say(`console ready at http://localhost:${CONSOLE_PORT}`));
}

/**
 * An app's environment: `base`, and for the gateway (whose webhooks are https only) the local
 * CA of `npm run webhook:receive -- --https` when that exists. Node reads one NODE_EXTRA_CA_CERTS file:
 * when the user set one, the gateway gets a file of both bundles (`trusted.pem` beside the CA), so
 * neither their CAs nor the local receiver stop being trusted; a bundle it cannot read is said aloud.
 * @param {string} app
 * @param {NodeJS.ProcessEnv} base
 * @param {string} [caFile]
 * @param {(line: string) => void} [tell]
 * @returns {NodeJS.ProcessEnv}
 */
function appEnvironment(app, base, caFile = LOCAL_CA_CERT, tell = say) {
  // One REDIS_PREFIX for all would put the docstore's and the gateway's webhook queues under one name, where each
  // app's workers would take the other's jobs: each app gets its own below the given one.
  const env = base.REDIS_PREFIX ? { ...base, REDIS_PREFIX: `${base.REDIS_PREFIX}${app}:` } : base;
  if (app !== 'gateway' || !fs.existsSync(caFile)) return env;
  const own = env.NODE_EXTRA_CA_CERTS;
  if (!own) return { ...env, NODE_EXTRA_CA_CERTS: caFile };
  let bundle;
  try {
    bundle = fs.readFileSync(own, 'utf8');
  } catch (err) {
    tell(`WARNING: NODE_EXTRA_CA_CERTS=${own} cannot be read (${/** @type {Error} */ (err).message}); the gateway trusts only the local webhook CA ${caFile}`);
    return { ...env, NODE_EXTRA_CA_CERTS: caFile };
  }
  const combined = path.join(path.dirname(caFile), 'trusted.pem');
  fs.writeFileSync(combined, `${bundle.trimEnd()}\n${fs.readFileSync(caFile, 'utf8')}`);
  tell(`gateway: NODE_EXTRA_CA_CERTS=${own} and the local webhook CA combined into ${path.relative(process.cwd(), combined)}`);
  return { ...env, NODE_EXTRA_CA_CERTS: combined };
}

module.exports = { appEnvironment };

if (require.main === module) {
  handleExit();
  main().catch(async (err) => {
    say(err.message);
    crashed = true;
    await shutdown();
  });
}
