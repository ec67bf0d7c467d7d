// @ts-check
'use strict';
// Jest globalSetup: one PostgreSQL and one Redis for the whole run (with TEST_REDIS_CLUSTER=1, a Redis Cluster
// on loopback too, which the booted apps use instead: TEST_REDIS_CLUSTER_NODES). Jest calls
// every project's globalSetup in this process, so the work is shared through
// globalThis and done once. Test workers inherit the variables set here.
// TEST_DATABASE_POOLER=pgbouncer also starts PgBouncer (transaction mode) in front
// of that PostgreSQL; the test kit then boots apps with DATABASE_URL pointing at it.

const crypto = require('node:crypto');
const { EMBEDDED_POSTGRES } = require('./defaults');
const { generateEncryptionKeys } = require('./encryption-keys');
const { ensurePostgres, ensureRedis, startPgBouncer } = require('./local-services');
const { startRedisCluster } = require('./redis-cluster');

async function start() {
  const postgres = await ensurePostgres(process.env.TEST_DATABASE_URL ? { url: process.env.TEST_DATABASE_URL } : EMBEDDED_POSTGRES.test);
  /** @type {Array<{ stop(): Promise<void> }>} */
  const started = [postgres];
  try {
    const pooled = process.env.TEST_DATABASE_POOLER;
    if (pooled && pooled !== 'pgbouncer') throw new Error(`TEST_DATABASE_POOLER=${pooled} is not known; the one pooler the tests run is pgbouncer.`);
    const pooler = pooled ? await startPgBouncer({ serverUrl: postgres.url }) : null;
    if (pooler) started.push(pooler);
    const redis = await ensureRedis({ url: process.env.TEST_REDIS_URL || process.env.REDIS_URL || undefined });
    started.push(redis);
    const wantsCluster = process.env.TEST_REDIS_CLUSTER === '1' && !process.env.TEST_REDIS_CLUSTER_NODES;
    const redisCluster = wantsCluster ? await startRedisCluster() : undefined;
    return { postgres, pooler, redis, redisCluster };
  } catch (err) {
    await Promise.all(started.reverse().map((s) => s.stop()));
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
  if (services.pooler) {
    process.env.TEST_DATABASE_POOLER_URL = services.pooler.url;
    process.env.TEST_DATABASE_POOLER_SIZE = String(services.pooler.poolSize);
  }
  if (services.redisCluster) process.env.TEST_REDIS_CLUSTER_NODES = services.redisCluster.nodes;
  process.env.TEST_RUN_ID ||= crypto.randomUUID().replace(/-/g, '').slice(0, 8);
  // Secrets at rest need a key; a run without one gets a key of its own.
  process.env.ENCRYPTION_KEYS ||= generateEncryptionKeys();
  process.env.TZ = 'UTC';
};
