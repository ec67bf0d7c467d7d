// @ts-check
'use strict';
// PostgreSQL and Redis for local runs and tests: use what the caller points at,
// or start a private instance as a child of this process.

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { Client } = require('pg');
const { ROOT, EMBEDDED_ROOT, EMBEDDED_POSTGRES, REDIS_URL, isRoot } = require('./defaults');
const { processAlive } = require('./run-state');
const DEBUG = process.env.DEBUG_LOCAL_SERVICES === '1';
const noop = async () => {};

// Children we started, with the signal that stops each; killed on process exit.
const children = new Map();
let hooked = false;

/*
 * OWN_GROUP: PostgreSQL and redis-server run in process groups of their own, so a terminal's
 * Ctrl-C (SIGINT to the whole foreground group) reaches the host and the apps but not them:
 * the host stops the apps first (they flush to the database as they stop) and the databases
 * last. Whatever way the host exits, the 'exit' hook below still stops them.
 */
function track(child, signal) {
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const [c, s] of children) c.kill(s);
    });
    // A signal nobody else listens for would kill us without an 'exit' event, so
    // exit normally instead; hosts with their own handler (tools/start.js) decide.
    for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      process.on(sig, () => {
        if (process.listenerCount(sig) === 1) process.exit(128 + os.constants.signals[sig]);
      });
    }
  }
  children.set(child, signal);
  child.once('exit', () => children.delete(child));
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

// Sends `signal`, escalates to SIGKILL after `killAfterMs`, resolves once the child is gone.
function terminate(child, signal = 'SIGTERM', killAfterMs = 10_000) {
  if (exited(child)) return Promise.resolve();
  return new Promise((/** @type {(value?: void) => void} */ resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

function redact(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<invalid URL>';
  }
}

// AggregateError (e.g. localhost resolving to ::1 and 127.0.0.1) has an empty message.
function reason(err) {
  return (err && (err.message || err.code || (err.errors && reason(err.errors[0])))) || String(err);
}

function sentence(text) {
  return text.replace(/[\s.]+$/, '') + '.';
}

// Keeps the last lines of a child's output so a failed start can say why.
function logTail(prefix) {
  const lines = [];
  return {
    write(chunk) {
      const text = String(chunk);
      if (DEBUG) process.stderr.write(text.replace(/^(?=.)/gm, `[${prefix}] `));
      lines.push(...text.split('\n').filter((l) => l.trim()));
      lines.splice(0, Math.max(0, lines.length - 20));
    },
    last(pattern) {
      return [...lines].reverse().find((l) => pattern.test(l)) || lines[lines.length - 1] || 'no output';
    },
  };
}

async function withPgClient(config, fn) {
  const client = new Client({ connectionTimeoutMillis: 3000, ...config });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** An error whose message is already the one sentence to show (cause and what to do). */
class ServiceError extends Error {}

const PG_USER = 'postgres';
const PG_PASSWORD = 'postgres';

/** The directory (bin/, lib/, share/) of the PostgreSQL build the embedded-postgres package installed. */
async function packagedPostgres() {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const { initdb } = await import(name);
    return path.dirname(path.dirname(initdb));
  } catch {
    throw new ServiceError(`There is no embedded PostgreSQL for this platform (${name} is not installed); set DATABASE_URL to a PostgreSQL of your own.`);
  }
}

/** As root: the `postgres` account the cluster runs as, created when missing. Otherwise none. */
function postgresAccount() {
  if (!isRoot) return undefined;
  const id = (flag) => Number(execFileSync('id', [flag, PG_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync(
        'sh',
        ['-c', `getent group ${PG_USER} >/dev/null || groupadd --system ${PG_USER}; useradd --system -g ${PG_USER} -M -s /bin/false ${PG_USER}`],
        { stdio: 'ignore' },
      );
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      throw new ServiceError(
        `PostgreSQL cannot run as root and there is no "${PG_USER}" user to run it as (creating one failed); create it (useradd ${PG_USER}) or set DATABASE_URL to a PostgreSQL of your own.`,
      );
    }
  }
}

/** Makes every file readable (and directories and programs enterable) by other users. */
function makeReadable(dir) {
  fs.chmodSync(dir, 0o755);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) makeReadable(file);
    else if (entry.isFile()) fs.chmodSync(file, fs.statSync(file).mode & 0o111 ? 0o755 : 0o644);
  }
}

/**
 * The binaries the cluster runs: the package's own, or (as root) a copy in EMBEDDED_ROOT, since
 * the `postgres` user may not be able to reach node_modules (a clone in a 0700 directory).
 */
async function postgresBinaries(account) {
  const packaged = await packagedPostgres();
  if (!account) return packaged;
  const { version } = JSON.parse(fs.readFileSync(path.join(packaged, '..', 'package.json'), 'utf8'));
  const copy = path.join(EMBEDDED_ROOT, `pg-${version}`);
  if (fs.existsSync(path.join(copy, 'bin', 'postgres'))) return copy;
  fs.mkdirSync(EMBEDDED_ROOT, { recursive: true });
  fs.chmodSync(EMBEDDED_ROOT, 0o755);
  const partial = `${copy}.${process.pid}`;
  fs.cpSync(packaged, partial, { recursive: true, verbatimSymlinks: true });
  makeReadable(partial);
  try {
    fs.renameSync(partial, copy);
  } catch {
    fs.rmSync(partial, { recursive: true, force: true }); // another process copied it first
  }
  return copy;
}

/** Runs `program` (as `account` when set) and resolves with its exit code, logging its output. */
function runAs(program, args, account, log, cwd) {
  const child = spawn(program, args, {
    cwd, // the user may not be able to enter the caller's directory
    ...account,
    env: { ...process.env, LC_MESSAGES: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // see OWN_GROUP
  });
  child.stdout?.on('data', (c) => log.write(c));
  child.stderr?.on('data', (c) => log.write(c));
  child.on('error', (err) => log.write(reason(err)));
  return child;
}

async function initCluster(bin, dataDir, account, log) {
  if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
    throw new ServiceError(`${dataDir} is not empty but holds no PostgreSQL cluster (an interrupted first start?); delete it and retry.`);
  }
  const parent = path.dirname(dataDir);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(parent, `.pgpass-${crypto.randomBytes(6).toString('hex')}`);
  fs.writeFileSync(passwordFile, `${PG_PASSWORD}\n`, { mode: 0o600 });
  if (account) {
    fs.chmodSync(parent, 0o755);
    fs.chownSync(dataDir, account.uid, account.gid);
    fs.chownSync(passwordFile, account.uid, account.gid);
  }
  try {
    const args = [`--pgdata=${dataDir}`, '--auth=password', `--username=${PG_USER}`, `--pwfile=${passwordFile}`, '--encoding=UTF8', '--no-locale'];
    const child = runAs(path.join(bin, 'bin', 'initdb'), args, account, log, parent);
    const code = await new Promise((resolve) => child.once('close', resolve));
    if (code !== 0) {
      fs.rmSync(dataDir, { recursive: true, force: true }); // so that a retry starts clean
      throw new ServiceError(
        sentence(
          `Could not create the embedded PostgreSQL cluster in ${dataDir} (${log.last(/FATAL|ERROR|error|EACCES/)}); fix that and retry, or set DATABASE_URL to a PostgreSQL of your own`,
        ),
      );
    }
  } finally {
    fs.rmSync(passwordFile, { force: true });
  }
}

// true: our cluster from an earlier run still answers; false: nothing listens.
async function isOurStaleCluster(dataDir, port) {
  try {
    const dir = await withPgClient(
      { host: '127.0.0.1', port, user: PG_USER, password: PG_PASSWORD, database: 'postgres' },
      async (c) => (await c.query('show data_directory')).rows[0].data_directory,
    );
    if (fs.realpathSync(dir) === fs.realpathSync(dataDir)) return true;
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ECONNREFUSED') return false;
  }
  throw new ServiceError(
    `Port ${port} is taken by something other than the embedded PostgreSQL in ${dataDir}; stop it, or set EMBEDDED_PG_PORT (npm start) or DATABASE_URL to use another.`,
  );
}

/**
 * The PostgreSQL that owns `dataDir` now, from its postmaster.pid (pid, then data directory, start time, port),
 * or null when none runs there.
 * @returns {{ pid: number, port: number } | null}
 */
function livePostmaster(dataDir) {
  let lines;
  try {
    lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  return processAlive(pid, 'postgres') ? { pid, port: Number(lines[3]) } : null;
}

/** What to do about `dataDir` after a failure: delete it only when no PostgreSQL owns it, never the live database. */
function dataDirAdvice(dataDir) {
  const live = livePostmaster(dataDir);
  if (!live) return `, or delete ${dataDir} to start fresh`;
  return `; ${dataDir} is the live database of PostgreSQL pid ${live.pid} (port ${live.port}): use that one (EMBEDDED_PG_PORT=${live.port}), or stop it (Ctrl-C in its \`npm start\`), but do not delete it`;
}

async function startEmbedded(dataDir, port) {
  const account = postgresAccount();
  const bin = await postgresBinaries(account);
  const log = logTail('postgres');
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) await initCluster(bin, dataDir, account, log);
  // TCP on loopback only; no Unix socket, so no directory to share with other clusters.
  const args = ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
  const child = runAs(path.join(bin, 'bin', 'postgres'), args, account, log, path.dirname(dataDir));
  track(child, 'SIGINT');
  const ready = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 60_000);
    const done = (/** @type {boolean} */ ok) => {
      clearTimeout(timer);
      resolve(ok);
    };
    child.stderr?.on('data', (c) => String(c).includes('ready to accept connections') && done(true));
    child.once('close', () => done(false));
  });
  if (!ready) {
    await terminate(child, 'SIGKILL');
    throw new ServiceError(
      sentence(
        `The embedded PostgreSQL in ${dataDir} did not start on port ${port} (${log.last(/FATAL|PANIC|ERROR|EACCES/)}); free that port, or set DATABASE_URL to a PostgreSQL of your own${dataDirAdvice(dataDir)}`,
      ),
    );
  }
  // SIGINT is PostgreSQL's "fast shutdown".
  return () => terminate(child, 'SIGINT', 15_000);
}

/**
 * A PostgreSQL at `where.url`, or the embedded cluster `where` describes (started if it is not
 * running, its database created if missing). `stop` stops what this call started.
 * @param {{ url: string } | import('./defaults').EmbeddedCluster} where
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
async function ensurePostgres(where) {
  if ('url' in where) {
    const { url } = where;
    try {
      await withPgClient({ connectionString: url }, (c) => c.query('select 1'));
    } catch (err) {
      throw new ServiceError(sentence(`Cannot connect to PostgreSQL at ${redact(url)} (${reason(err)}); start that PostgreSQL or correct the URL`));
    }
    return { url, stop: noop };
  }

  const { dataDir, database } = where;
  const dir = path.resolve(ROOT, dataDir);
  let { port } = where;
  // The cluster may already run on another port (`EMBEDDED_PG_PORT=… npm start` in another shell): use it there.
  const live = livePostmaster(dir);
  if (live && live.port !== port && (await isOurStaleCluster(dir, live.port).catch(() => false))) port = live.port;
  let stop;
  try {
    stop = (await isOurStaleCluster(dir, port)) ? noop : await startEmbedded(dir, port);
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    // Anything unforeseen (a directory it cannot create, a copy that fails) still gets one sentence.
    throw new ServiceError(
      sentence(`The embedded PostgreSQL could not start (${reason(err)}); fix that, or set DATABASE_URL to a PostgreSQL of your own${dataDirAdvice(dir)}`),
    );
  }
  try {
    await withPgClient({ host: '127.0.0.1', port, user: PG_USER, password: PG_PASSWORD, database: 'postgres' }, async (c) => {
      const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [database]);
      if (rowCount === 0) {
        await c.query(`create database ${c.escapeIdentifier(database)}`).catch((err) => {
          if (err.code !== '42P04') throw err; // created concurrently
        });
      }
    });
  } catch (err) {
    await stop();
    throw new ServiceError(
      sentence(`Could not create database ${database} in the embedded PostgreSQL in ${dir} (${reason(err)}); fix that${dataDirAdvice(dir)}`),
    );
  }
  return { url: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`, stop };
}

async function redisAnswers(url) {
  // Required here: the CLIs (tools/app-cli.js) load this file for PostgreSQL only.
  const { default: Redis } = require('ioredis');
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    commandTimeout: 1000,
    enableReadyCheck: false, // else a non-Redis listener stalls connect() for seconds
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function onPath(binary) {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * A Redis at `url`, or (on loopback, with redis-server on PATH) one started there for this process; `say`
 * hears about the latter, since the user named a Redis of their own that was not running.
 * @param {{ url?: string, say?: (line: string) => void }} [options]
 */
async function ensureRedis({ url = REDIS_URL, say = () => {} } = {}) {
  if (await redisAnswers(url)) return { url, stop: noop };

  const u = new URL(url);
  if (!LOOPBACK.has(u.hostname) || !onPath('redis-server')) {
    throw new ServiceError(
      `Redis is needed but nothing answers at ${redact(url)}; point REDIS_URL at a running Redis or install one (apt-get install redis-server, brew install redis, or docker run -p 6379:6379 redis:7).`,
    );
  }

  const args = ['--bind', u.hostname.replace(/^\[|\]$/g, ''), '--port', u.port || '6379'];
  args.push('--save', '', '--appendonly', 'no');
  if (u.password) args.push('--requirepass', decodeURIComponent(u.password));
  const log = logTail('redis');
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true }); // see OWN_GROUP
  track(child, 'SIGTERM');
  child.stdout.on('data', (c) => log.write(c));
  child.stderr.on('data', (c) => log.write(c));
  child.on('error', (err) => log.write(reason(err)));

  const deadline = Date.now() + 5000;
  for (;;) {
    if (exited(child) || Date.now() > deadline) {
      await terminate(child, 'SIGKILL');
      throw new ServiceError(
        sentence(`redis-server did not start on ${redact(url)} (${log.last(/#|error/i)}); free that port or point REDIS_URL at a running Redis`),
      );
    }
    if (await redisAnswers(url)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  say(`nothing answered at ${redact(url)}: started a redis-server there for this session (pid ${child.pid}, no persistence); it stops with this process`);
  return { url, stop: () => terminate(child, 'SIGTERM', 5000) };
}

/** A free TCP port on loopback (the OS picks it; nothing else can take it before PgBouncer binds it, in practice). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = require('node:net').createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * PgBouncer in transaction mode on a free loopback port in front of the PostgreSQL at `serverUrl`: every
 * database of that server, as the URL's user (trust on loopback; PgBouncer logs in with the URL's password).
 * `url` is `serverUrl` with PgBouncer's host and port. Server connections per database are capped at
 * `poolSize`, so clients share them as they would in production; `max_client_conn` is far above that.
 * @param {{ serverUrl: string, poolSize?: number }} options
 * @returns {Promise<{ url: string, poolSize: number, stop: () => Promise<void> }>}
 */
async function startPgBouncer({ serverUrl, poolSize = 2 }) {
  if (!onPath('pgbouncer')) {
    throw new ServiceError(
      'PgBouncer is needed (TEST_DATABASE_POOLER=pgbouncer) but is not installed; install it (apt-get install pgbouncer, brew install pgbouncer).',
    );
  }
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username || PG_USER);
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-'));
  const quoted = (/** @type {string} */ text) => `"${text.replace(/"/g, '""')}"`;
  fs.writeFileSync(path.join(dir, 'users.txt'), `${quoted(user)} ${quoted(password)}\n`, { mode: 0o600 });
  const host = server.hostname.replace(/^\[|\]$/g, '');
  const ini = [
    '[databases]',
    `* = host=${host} port=${server.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'pool_mode = transaction',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'users.txt')}`,
    `default_pool_size = ${poolSize}`,
    'max_client_conn = 2000',
    // node-postgres and TypeORM send no other startup parameters; a client that sends these is still served.
    'ignore_startup_parameters = extra_float_digits,options',
    // Tests drop their databases at the end; PgBouncer must not hold on to them.
    'server_idle_timeout = 30',
    'admin_users =',
    // PgBouncer refuses to run as root; as root it reads its files first and then becomes this user.
    ...(isRoot ? [`user = ${postgresAccount() ? PG_USER : 'nobody'}`] : []),
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'pgbouncer.ini'), `${ini}\n`, { mode: 0o600 });
  const log = logTail('pgbouncer');
  const child = spawn('pgbouncer', [path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'], detached: true }); // see OWN_GROUP
  track(child, 'SIGINT');
  child.stdout.on('data', (c) => log.write(c));
  child.stderr.on('data', (c) => log.write(c));
  child.on('error', (err) => log.write(reason(err)));
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const stop = async () => {
    await terminate(child, 'SIGINT', 5000); // SIGINT: PgBouncer's immediate shutdown
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await withPgClient({ connectionString: url.toString() }, (c) => c.query('select 1'));
      return { url: url.toString(), poolSize, stop };
    } catch (err) {
      if (exited(child) || Date.now() > deadline) {
        await stop();
        throw new ServiceError(sentence(`PgBouncer did not start in front of ${redact(serverUrl)} (${log.last(/FATAL|ERROR|WARNING/)}; ${reason(err)})`));
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The database `npm start` and the CLIs use: DATABASE_URL, or the embedded cluster's `services` database. */
function ensureRunDatabase() {
  return ensurePostgres(process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : EMBEDDED_POSTGRES.run);
}

module.exports = { ensurePostgres, ensureRunDatabase, ensureRedis, startPgBouncer, freePort, terminate, redact, track, logTail, ServiceError, onPath };
