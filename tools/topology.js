// @ts-check
'use strict';
// `npm run topology`: the production layout on one machine. PgBouncer (transaction mode) in front of PostgreSQL,
// a Redis Cluster (3 masters, 3 replicas), per app two API replicas (workers `off`) and one worker process (`only`),
// the k8s Deployments' split, and nginx as a round-robin load balancer in front of each app's API replicas.
// `startTopology()` is the same for the tests (jest.topology.config.js); they kill and restart its processes.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');
const { ROOT } = require('./defaults');
const { ensureBuilt } = require('./app-build');
const { localEncryptionKeys } = require('./encryption-keys');
const { ensureRunDatabase, ensurePostgres, startPgBouncer, freePort, track, terminate, logTail, ServiceError, onPath, redact } = require('./local-services');
const { startRedisCluster } = require('./redis-cluster');

/** Each app's worker Deployment (k8s/base/<app>.yaml) and the setting that splits API from workers. */
const WORKERS = {
  docstore: { name: 'docstore-webhooks', setting: 'WEBHOOK_WORKERS' },
  gateway: { name: 'gateway-webhooks', setting: 'WEBHOOK_WORKERS' },
  'ingest-push': { name: 'ingest-push-workers', setting: 'PUSH_WORKERS' },
};
/** @typedef {keyof typeof WORKERS} App */
const APPS = /** @type {App[]} */ (Object.keys(WORKERS));
const API_REPLICAS = 2;

/**
 * @typedef {{ name: string, app: App, role: 'api' | 'worker', port: number, child?: import('node:child_process').ChildProcess,
 *   inRotation: boolean, log: ReturnType<typeof logTail> }} Replica
 */

const entry = (/** @type {App} */ app) => path.join(ROOT, 'dist', app, 'apps', app, 'src', 'main.js');
const exited = (/** @type {import('node:child_process').ChildProcess} */ child) => child.exitCode !== null || child.signalCode !== null;

/** GET `url`, resolving with its status, or 0 when nothing answers. */
async function status(url) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** Waits until `check` holds, polling every 100 ms; throws `failure()` after `timeoutMs`. */
async function until(check, timeoutMs, failure) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new ServiceError(failure());
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * nginx's configuration: per app an upstream of its API replicas (round robin, passive health: one failure takes a
 * replica out for 5 s) and a server on the app's port. A request moves to the next replica only when it could not be
 * sent (connection refused or reset before it was written) or, for idempotent methods, on a timeout, as ingress-nginx
 * does; bodies stream (request buffering off) with the longest limits the Ingresses allow (1 GB, 660 s).
 * `/.topology/generation` answers the configuration's generation, so a reload can be waited for.
 */
function nginxConfig(dir, generation, lbPorts, replicas) {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${path.join(dir, `${t}-temp`)};`);
  const apps = Object.keys(lbPorts).map((app) => {
    const servers = replicas
      .filter((r) => r.app === app && r.role === 'api')
      .map((r) => `    server 127.0.0.1:${r.port} max_fails=1 fail_timeout=5s${r.inRotation ? '' : ' down'};`);
    return [
      `  upstream ${app} {`,
      ...servers,
      '  }',
      '  server {',
      `    listen 127.0.0.1:${lbPorts[app]};`,
      `    location = /.topology/generation { return 200 "${generation}"; }`,
      // Which replica answered, for the tests and for a look with curl -i.
      `    location / { proxy_pass http://${app}; add_header X-Upstream $upstream_addr always; }`,
      '  }',
    ].join('\n');
  });
  return [
    'worker_processes 1;',
    'daemon off;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} warn;`,
    // As root nginx's workers become nobody, who must reach only the temporary paths.
    ...(process.getuid?.() === 0 ? ['user nobody nogroup;'] : []),
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    ...temp,
    // A reload (how this nginx takes a replica out) closes idle client connections, and a client reusing one just then
    // gets a reset; ingress-nginx changes endpoints without a reload. So every answer here closes its connection.
    '  keepalive_timeout 0;',
    '  client_max_body_size 1g;',
    '  proxy_request_buffering off;',
    '  proxy_http_version 1.1;',
    '  proxy_set_header Host $host;',
    '  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '  proxy_set_header X-Forwarded-Proto $scheme;',
    '  proxy_connect_timeout 2s;',
    '  proxy_send_timeout 660s;',
    '  proxy_read_timeout 660s;',
    '  proxy_next_upstream error timeout;',
    '  proxy_next_upstream_tries 2;',
    ...apps,
    '}',
    '',
  ].join('\n');
}

/** nginx on the PATH, its `-t` check passing for `file`. */
function checkNginx(file) {
  return new Promise((resolve, reject) => {
    execFile('nginx', ['-t', '-q', '-c', file], (error, _stdout, stderr) => {
      if (error) reject(new ServiceError(`nginx refused the topology's configuration: ${String(stderr).trim().split('\n').pop()}`));
      else resolve(undefined);
    });
  });
}

/**
 * Starts the topology and resolves once every process answers /health with 200 and the load balancer routes to them.
 * @param {{ apps?: App[], databaseUrl?: string, encryptionKeys?: string, env?: Record<string, string>,
 *   appEnv?: Partial<Record<App, Record<string, string>>>, poolSize?: number }} [options]
 *   `databaseUrl`: PostgreSQL itself (default: what `npm start` uses); `env` goes to every process, `appEnv[app]` to
 *   that app's; `poolSize`: PgBouncer's server connections per database and user.
 */
async function startTopology(options = {}) {
  const apps = options.apps ?? APPS;
  if (!onPath('nginx')) throw new ServiceError('The topology needs nginx as its load balancer; install it (apt-get install nginx, brew install nginx).');
  /** @type {Array<() => Promise<void>>} */
  const stops = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-'));
  fs.chmodSync(dir, 0o755);
  /** @type {Replica[]} */
  const replicas = [];
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let nginx;
  let generation = 0;
  /** @type {Record<string, number>} */
  const lbPorts = {};

  const stop = async () => {
    /** @type {Promise<void>[]} */
    const exits = [];
    for (const r of replicas) if (r.child) exits.push(terminate(r.child, 'SIGTERM', 15_000));
    await Promise.all(exits);
    if (nginx) await terminate(nginx, 'SIGQUIT', 5000);
    for (const s of stops.reverse()) await s().catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    await Promise.all(apps.map((app) => ensureBuilt(app)));
    const postgres = options.databaseUrl ? await ensurePostgres({ url: options.databaseUrl }) : await ensureRunDatabase();
    stops.push(postgres.stop);
    const pooler = await startPgBouncer({ serverUrl: postgres.url, poolSize: options.poolSize ?? 20 });
    stops.push(pooler.stop);
    const redis = await startRedisCluster();
    stops.push(redis.stop);
    const mediaDir = path.join(dir, 'media'); // the gateway's ReadWriteMany volume
    fs.mkdirSync(mediaDir);

    /** Every setting but the port, as the k8s overlay `production-scaled` gives them. */
    const baseEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: pooler.url,
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: postgres.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_CLUSTER_NODES: redis.nodes,
      ENCRYPTION_KEYS: options.encryptionKeys ?? localEncryptionKeys(),
      TRUST_PROXY: '1',
      MEDIA_DIR: mediaDir,
      ...options.env,
    };
    const envOf = (/** @type {Replica} */ r) => ({
      ...baseEnv,
      ...options.appEnv?.[r.app],
      PORT: String(r.port),
      [WORKERS[r.app].setting]: r.role === 'api' ? 'off' : 'only',
    });

    for (const app of apps) {
      for (let i = 1; i <= API_REPLICAS; i++)
        replicas.push({ name: `${app}-${i}`, app, role: 'api', port: await freePort(), inRotation: true, log: logTail(`${app}-${i}`) });
      replicas.push({ name: WORKERS[app].name, app, role: 'worker', port: await freePort(), inRotation: false, log: logTail(WORKERS[app].name) });
      lbPorts[app] = await freePort();
    }

    const byName = (/** @type {string} */ name) => {
      const replica = replicas.find((r) => r.name === name);
      if (!replica) throw new ServiceError(`There is no replica ${name}; the topology runs ${replicas.map((r) => r.name).join(', ')}.`);
      return replica;
    };

    /** Starts a replica's process and resolves once its /health answers 200. */
    const startReplica = async (/** @type {Replica} */ r) => {
      const child = spawn(process.execPath, [entry(r.app)], { cwd: ROOT, env: envOf(r), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      track(child, 'SIGKILL');
      child.stdout?.on('data', (c) => r.log.write(c));
      child.stderr?.on('data', (c) => r.log.write(c));
      r.child = child;
      await until(
        async () => !exited(child) && (await status(`http://127.0.0.1:${r.port}/health`)) === 200,
        60_000,
        () => `${r.name} did not answer /health with 200 (${exited(child) ? `exited: ${r.log.last(/error|invalid|Setting/i)}` : 'within 60 s'})`,
      );
    };

    const confFile = path.join(dir, 'nginx.conf');
    /** Writes the configuration and, once nginx runs, reloads it and waits until new connections see it. */
    const reconfigure = async () => {
      generation++;
      fs.writeFileSync(`${confFile}.next`, nginxConfig(dir, generation, lbPorts, replicas));
      await checkNginx(`${confFile}.next`);
      fs.renameSync(`${confFile}.next`, confFile);
      if (!nginx) return;
      nginx.kill('SIGHUP');
      const expected = String(generation);
      await until(
        async () => {
          const answers = await Promise.all(
            Object.values(lbPorts).map((port) =>
              fetch(`http://127.0.0.1:${port}/.topology/generation`).then(
                (r) => r.text(),
                () => '',
              ),
            ),
          );
          return answers.every((a) => a === expected);
        },
        10_000,
        () => 'nginx did not load its new configuration within 10 s',
      );
    };

    /** One reconfiguration at a time (restarts of several apps run at once). */
    let configuring = Promise.resolve();
    const configure = () => {
      const run = configuring.then(reconfigure);
      configuring = run.catch(() => {});
      return run;
    };

    // Every replica at once, as Kubernetes starts them: one migrates each schema, the others wait for it (libs/database).
    await Promise.all(replicas.map(startReplica));

    await configure();
    const nginxLog = logTail('nginx');
    nginx = spawn('nginx', ['-c', confFile], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    track(nginx, 'SIGQUIT');
    nginx.stdout?.on('data', (c) => nginxLog.write(c));
    nginx.stderr?.on('data', (c) => nginxLog.write(c));
    const lb = /** @type {import('node:child_process').ChildProcess} */ (nginx);
    await until(
      async () => !exited(lb) && (await Promise.all(Object.values(lbPorts).map((port) => status(`http://127.0.0.1:${port}/health`)))).every((s) => s === 200),
      10_000,
      () => `nginx did not route to the apps (${exited(lb) ? nginxLog.last(/emerg|error/) : 'no 200 from /health within 10 s'})`,
    );

    return {
      /** The load balancer's URL per app. */
      urls: /** @type {Record<App, string>} */ (Object.fromEntries(Object.entries(lbPorts).map(([app, port]) => [app, `http://127.0.0.1:${port}`]))),
      /** Every process: name (`docstore-1`, `docstore-webhooks`, …), app, role and its own URL. */
      replicas: () =>
        replicas.map((r) => ({ name: r.name, app: r.app, role: r.role, url: `http://127.0.0.1:${r.port}`, running: !!r.child && !exited(r.child) })),
      /** PostgreSQL itself, PgBouncer, and the REDIS_CLUSTER_NODES setting. */
      databaseUrl: postgres.url,
      poolerUrl: pooler.url,
      redisNodes: redis.nodes,
      /** Kills a process outright (SIGKILL, as a crash or an evicted pod); nginx finds out by itself. */
      kill: async (/** @type {string} */ name) => {
        const r = byName(name);
        if (r.child) await terminate(r.child, 'SIGKILL');
      },
      /** Starts a stopped or killed process again on its port (as Kubernetes replaces a pod) and waits for /health. */
      start: (/** @type {string} */ name) => startReplica(byName(name)),
      /**
       * Replaces a process as a rolling update does: an API replica leaves the load balancer first (Kubernetes takes a
       * terminating pod out of the endpoints during its preStop), gets SIGTERM, drains and exits; the new one starts on
       * the same port and joins the load balancer once /health answers 200.
       */
      restart: async (/** @type {string} */ name) => {
        const r = byName(name);
        if (r.role === 'api') {
          r.inRotation = false;
          await configure();
        }
        if (r.child) await terminate(r.child, 'SIGTERM', 30_000);
        await startReplica(r);
        if (r.role === 'api') {
          r.inRotation = true;
          await configure();
        }
      },
      /** `node main.js <args>` of an app (its commands: `token`, `apikey`, `push-token`), resolving with what it prints. */
      cli: (/** @type {App} */ app, /** @type {string[]} */ args) =>
        new Promise((resolve, reject) => {
          execFile(process.execPath, [entry(app), ...args], { cwd: ROOT, env: { ...baseEnv, ...options.appEnv?.[app] } }, (error, stdout, stderr) => {
            if (error) reject(new ServiceError(`${app} ${args[0]} failed: ${String(stderr).trim().split('\n').pop()}`));
            else resolve(stdout.trim());
          });
        }),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function main() {
  const requested = process.argv.slice(2);
  const unknown = requested.filter((app) => !APPS.includes(/** @type {App} */ (app)));
  if (unknown.length) throw new ServiceError(`Unknown app ${unknown.join(', ')}; choose from ${APPS.join(', ')}.`);
  const say = (/** @type {string} */ msg) => process.stderr.write(`[topology] ${msg}\n`);
  say('building, then starting PgBouncer, a Redis Cluster, the apps and nginx');
  const topology = await startTopology({ apps: requested.length ? /** @type {App[]} */ (requested) : undefined });
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      say(`${signal} received, stopping`);
      topology.stop().then(
        () => process.exit(0),
        (error) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
  say(`PostgreSQL ${redact(topology.databaseUrl)} through PgBouncer ${redact(topology.poolerUrl)}, Redis Cluster ${topology.redisNodes}`);
  for (const [app, url] of Object.entries(topology.urls)) say(`${app}: ${url} (nginx)`);
  for (const r of topology.replicas()) say(`  ${r.name.padEnd(20)} ${r.url}`);
  say('Ctrl-C stops everything');
}

module.exports = { startTopology, nginxConfig };

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`[topology] ${err instanceof ServiceError ? err.message : err.stack}\n`);
    process.exit(1);
  });
}
