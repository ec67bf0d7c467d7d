'use strict';
// `npm start [app ...]`: PostgreSQL + Redis (given or local), build, run the apps.

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ensurePostgres, ensureRedis, terminate, redact, ROOT } = require('./local-services');

const PORTS = {
  docstore: process.env.DOCSTORE_PORT || '3001',
  gateway: process.env.GATEWAY_PORT || '3002',
  'ingest-push': process.env.INGEST_PUSH_PORT || '3003',
};

const say = (msg) => process.stderr.write(`[start] ${msg}\n`);

const children = new Set(); // build and apps
const services = [];
let stopping = false;
let crashed = false;

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

async function shutdown() {
  if (stopping) return;
  stopping = true;
  await Promise.all([...children].map((child) => terminate(child, 'SIGTERM', 10_000)));
  await Promise.all(services.map((s) => s.stop().catch((err) => say(`stopping a service failed: ${err.message}`))));
  process.exit(crashed ? 1 : 0);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (!stopping) {
      say(`${signal} received, stopping`);
      shutdown();
    } else {
      for (const child of children) child.kill('SIGKILL'); // second Ctrl-C: don't wait
    }
  });
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
  const apps = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(PORTS);
  const unknown = apps.filter((app) => !(app in PORTS));
  if (unknown.length) throw new Error(`Unknown app ${unknown.join(', ')}; choose from ${Object.keys(PORTS).join(', ')}.`);

  const postgres = await ensurePostgres(
    process.env.DATABASE_URL
      ? { url: process.env.DATABASE_URL }
      : { dataDir: '.data/postgres', port: Number(process.env.EMBEDDED_PG_PORT || 54320), database: 'services' },
  );
  services.push(postgres);
  if (stopping) return;
  const redis = await ensureRedis({ url: process.env.REDIS_URL || undefined });
  services.push(redis);
  if (stopping) return;
  say(`PostgreSQL ${redact(postgres.url)}, Redis ${redact(redis.url)}`);

  if (process.env.SKIP_BUILD !== '1') {
    const code = await build(apps);
    if (stopping) return;
    if (code !== 0) {
      say(`build failed (exit ${code})`);
      crashed = true;
      return shutdown();
    }
  }

  const entry = (app) => path.join('dist', app, 'apps', app, 'src', 'main.js');
  const missing = apps.map(entry).filter((file) => !fs.existsSync(path.join(ROOT, file)));
  if (missing.length) {
    const hint = process.env.SKIP_BUILD === '1' ? 'run without SKIP_BUILD=1 to build' : 'the build did not produce it';
    say(`${missing.join(', ')} missing; ${hint}`);
    crashed = true;
    return shutdown();
  }

  for (const app of apps) {
    const env = { ...process.env, DATABASE_URL: postgres.url, REDIS_URL: redis.url, PORT: PORTS[app] };
    const child = run(process.execPath, [entry(app)], env);
    say(`${app} started (pid ${child.pid}, port ${PORTS[app]})`);
    child.once('exit', (code, signal) => {
      if (stopping) return;
      // SIGINT/SIGTERM sent straight to the app (e.g. Ctrl-C reaching the whole process group) is a stop, not a crash.
      crashed = code !== 0 && !['SIGINT', 'SIGTERM'].includes(signal);
      say(`${app} exited (${signal || `code ${code}`}), stopping the others`);
      shutdown();
    });
  }
}

main().catch(async (err) => {
  say(err.message);
  crashed = true;
  await shutdown();
});
