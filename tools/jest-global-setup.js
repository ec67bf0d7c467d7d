'use strict';
// Jest globalSetup: one PostgreSQL and one Redis for the whole run. Jest calls
// every project's globalSetup in this process, so the work is shared through
// globalThis and done once. Test workers inherit the variables set here.

const crypto = require('node:crypto');
const { ensurePostgres, ensureRedis } = require('./local-services');

async function start() {
  const postgres = await ensurePostgres(
    process.env.TEST_DATABASE_URL
      ? { url: process.env.TEST_DATABASE_URL }
      : { dataDir: '.data/test-postgres', port: 54321, database: 'postgres' },
  );
  let redis;
  try {
    redis = await ensureRedis({ url: process.env.TEST_REDIS_URL || process.env.REDIS_URL || undefined });
  } catch (err) {
    await postgres.stop();
    throw err;
  }
  return { postgres, redis };
}

module.exports = async () => {
  globalThis.__localServices ??= start();
  const { postgres, redis } = await globalThis.__localServices;
  process.env.TEST_DATABASE_URL = postgres.url;
  process.env.TEST_REDIS_URL = redis.url;
  process.env.TEST_RUN_ID ||= crypto.randomUUID().replace(/-/g, '').slice(0, 8);
  process.env.TZ = 'UTC';
};
