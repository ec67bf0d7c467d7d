// @ts-check
'use strict';
// A Redis Cluster on loopback for tests and local runs: `masters` masters with `replicas` replicas each, every
// node a redis-server child of this process (no persistence), joined by `redis-cli --cluster create`.

const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');
const { default: Redis } = require('ioredis');
const { track, terminate, logTail, ServiceError, onPath } = require('./local-services');

/** Whether a loopback port is free now. */
function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function clusterPort(taken) {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 25000);
    if (taken.has(port) || taken.has(port + 10000) || taken.has(port - 10000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10000))) return port;
  }
}

/** `redis-cli args…`, resolving with its output. */
function redisCli(args) {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', args, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new ServiceError(`redis-cli ${args.slice(0, 2).join(' ')} failed: ${(stderr || stdout || error.message).trim().split('\n').pop()}`));
      else resolve(stdout);
    });
  });
}

/** Asks one node; undefined when it does not answer. */
async function ask(port, ...command) {
  const client = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    connectTimeout: 1000,
    commandTimeout: 2000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(command[0], ...command.slice(1));
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/** Waits until `check` holds, polling every 100 ms; throws `failure` after `timeoutMs`. */
async function until(check, timeoutMs, failure) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new ServiceError(failure());
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts the cluster and resolves once every node serves all 16384 slots and every replica is in sync.
 * `nodeTimeoutMs` is the cluster's node timeout: how long a master is unreachable before a replica takes over.
 * @param {{ masters?: number, replicas?: number, nodeTimeoutMs?: number }} [options]
 */
async function startRedisCluster({ masters = 3, replicas = 1, nodeTimeoutMs = 2000 } = {}) {
  if (!onPath('redis-server') || !onPath('redis-cli')) {
    throw new ServiceError('A Redis Cluster needs redis-server and redis-cli (apt-get install redis-server, brew install redis).');
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-cluster-'));
  /** @type {Map<number, import('node:child_process').ChildProcess>} */
  const nodes = new Map();
  const logs = new Map();
  const taken = new Set();

  const startNode = (port) => {
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      `nodes-${port}.conf`,
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      // Replicas copy their master at once (Redis waits 5 s by default for more replicas to share one transfer).
      '--repl-diskless-sync',
      'yes',
      '--repl-diskless-sync-delay',
      '0',
    ];
    const log = logTail(`redis:${port}`);
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    track(child, 'SIGTERM');
    child.stdout?.on('data', (c) => log.write(c));
    child.stderr?.on('data', (c) => log.write(c));
    nodes.set(port, child);
    logs.set(port, log);
  };

  const stop = async () => {
    await Promise.all([...nodes.values()].map((child) => terminate(child, 'SIGTERM', 5000)));
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      const port = await clusterPort(taken);
      taken.add(port);
      startNode(port);
    }
    const ports = [...nodes.keys()];
    for (const port of ports) {
      await until(
        async () => (await ask(port, 'PING')) === 'PONG',
        5000,
        () => `redis-server did not start on port ${port} (${logs.get(port).last(/#|error/i)})`,
      );
    }
    await redisCli(['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes']);
    await until(
      async () => {
        for (const port of ports) {
          const info = String(await ask(port, 'CLUSTER', 'INFO'));
          if (!info.includes('cluster_state:ok') || !info.includes('cluster_slots_ok:16384')) return false;
          const replication = String(await ask(port, 'INFO', 'replication'));
          if (replication.includes('role:slave') && !replication.includes('master_link_status:up')) return false;
        }
        return true;
      },
      30_000,
      () => 'The Redis Cluster did not become ready within 30 s',
    );
    return {
      /** The REDIS_CLUSTER_NODES setting: every node, as `127.0.0.1:port,…`. */
      nodes: ports.map((p) => `127.0.0.1:${p}`).join(','),
      ports,
      stop,
      /** Kills one node outright (as a crash would). */
      kill: (port) => terminate(/** @type {import('node:child_process').ChildProcess} */ (nodes.get(port)), 'SIGKILL'),
      /**
       * Cuts a master off from its replicas: they keep what they have but get nothing more (their reconnections
       * fail to authenticate). What the master writes from then on dies with it, as it does when a master dies
       * while its replicas lag behind; a replica cut off for less than 10 node timeouts still takes over.
       */
      cutReplicas: async (port) => {
        const replication = String(await ask(port, 'INFO', 'replication'));
        for (const [, replica] of replication.matchAll(/^slave\d+:.*port=(\d+)/gm)) {
          await ask(Number(replica), 'CONFIG', 'SET', 'masteruser', 'cut-off', 'masterauth', 'cut-off');
        }
        await ask(port, 'CLIENT', 'KILL', 'TYPE', 'replica');
      },
      /** The port of the master that serves `key` now (its hash slot's owner, as a live node sees it). */
      masterOf: async (key) => {
        for (const [port, child] of nodes) {
          if (child.exitCode !== null || child.signalCode !== null) continue;
          const slot = await ask(port, 'CLUSTER', 'KEYSLOT', key);
          const ranges = /** @type {Array<[number, number, [string, number]]> | undefined} */ (await ask(port, 'CLUSTER', 'SLOTS'));
          const owner = ranges?.find(([from, to]) => Number(slot) >= from && Number(slot) <= to);
          if (owner) return Number(owner[2][1]);
        }
        throw new ServiceError(`No live node of the cluster knows who serves ${key}`);
      },
      /** The role a node plays now: 'master' or 'slave' (undefined when it does not answer). */
      role: async (port) => /** @type {unknown[] | undefined} */ (await ask(port, 'ROLE'))?.[0],
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

module.exports = { startRedisCluster };
