// @ts-check
'use strict';
// Jest globalSetup: one PostgreSQL and one Redis for the whole run (with TEST_REDIS_CLUSTER=1, a Redis Cluster
// on loopback too, which the booted apps use instead: TEST_REDIS_CLUSTER_NODES). Jest calls
// every project's globalSetup in this process, so the work is shared through
// globalThis and done once. Test workers inherit the variables set here.

const crypto = require('node:crypto');
const { EMBEDDED_POSTGRES } = require('./defaults');
const { generateEncryptionKeys } = require('./encryption-keys');
const { ensurePostgres, ensureRedis } = require('./local-services');
const { startRedisCluster } = require('./redis-cluster');

async function start() {
  const postgres = await ensurePostgres(process.env.TEST_DATABASE_URL ? { url: process.env.TEST_DATABASE_URL } : EMBEDDED_POSTGRES.test);
  const started = [postgres];
  try {
    const redis = await ensureRedis({ url: process.env.TEST_REDIS_URL || process.env.REDIS_URL || undefined });
    started.push(redis);
    const wantsCluster = process.env.TEST_REDIS_CLUSTER === '1' && !process.env.TEST_REDIS_CLUSTER_NODES;
    const redisCluster = wantsCluster ? await startRedisCluster() : undefined;
    return { postgres, redis, redisCluster };
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    throw err;
  }
}

/** @type {typeof globalThis & { __localServices?: ReturnType<typeof start> }} */
const shared = globalThis;

module.exports = async () => {
  shared.__localServices ??= start();
  let services;
  try {
    services = await shared.__localServices;
  } catch (err) {
    // One sentence saying what failed and what to do; a stack trace would only bury it.
    process.stderr.write(`\n${/** @type {Error} */ (err).message}\n`);
    process.exit(1);
  }
  process.env.TEST_DATABASE_URL = services.postgres.url;
  process.env.TEST_REDIS_URL = services.redis.url;
  if (services.redisCluster) process.env.TEST_REDIS_CLUSTER_NODES = services.redisCluster.nodes;
  process.env.TEST_RUN_ID ||= crypto.randomUUID().replace(/-/g, '').slice(0, 8);
  // Secrets at rest need a key; a run without one gets a key of its own.
  process.env.ENCRYPTION_KEYS ||= generateEncryptionKeys();
  process.env.TZ = 'UTC';
};
