// @ts-check
'use strict';
// Jest globalTeardown: drop the databases this run's tests created
// (t_<TEST_RUN_ID>_*), then stop what jest-global-setup started (PgBouncer first, so it
// holds no connection to them; the Redis Cluster too). Runs once
// however many projects call it.

const { Client } = require('pg');

async function dropRunDatabases(url, runId) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('select datname from pg_database where starts_with(datname, $1)', [
      `t_${runId}_`,
    ]);
    for (const { datname } of rows) {
      await client.query(`drop database if exists ${client.escapeIdentifier(datname)} with (force)`);
    }
  } finally {
    await client.end();
  }
}

module.exports = async () => {
  const pending = globalThis.__localServices;
  if (!pending) return;
  globalThis.__localServices = undefined;
  const services = await pending.catch(() => null); // setup failed and Jest already reported it
  if (!services) return;
  const { postgres, pooler, redis, redisCluster } = services;
  try {
    await pooler?.stop();
    if (process.env.TEST_RUN_ID) await dropRunDatabases(postgres.url, process.env.TEST_RUN_ID);
  } finally {
    await Promise.all([postgres.stop(), redis.stop(), redisCluster?.stop()]);
  }
};
